/** MySQL type codes, column flags, collations, status flags and error codes; no Netty here. */
package io.shardgate.protocol.type;
