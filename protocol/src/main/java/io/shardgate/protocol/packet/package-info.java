/**
 * MySQL client/server packets, one immutable record each, with a static {@code read} of a payload
 * positioned at its first byte and an instance {@code write}; neither retains nor releases. Byte
 * arrays in records are not copied: treat them as read-only.
 */
package io.shardgate.protocol.packet;
