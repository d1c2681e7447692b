package io.shardgate.sharding.plan;

import io.shardgate.sharding.digest.Digest;
import io.shardgate.sharding.digest.Literal;
import io.shardgate.sharding.digest.LiteralKind;
import java.util.ArrayList;
import java.util.List;

/**
 * The values of one execution, by slot (the {@code ?} of the normalized text): decoded literals of
 * the client's SQL, and for prepared statements the bound parameters. A list slot ({@code IN
 * (...)}) has several values, any other slot one.
 */
public final class Values {
    private final Digest digest;
    private final List<?> parameters;
    private final int[] slotStart;
    /** The key the router generated for each INSERT row (0: the row has its own), or null. */
    private final long[] generatedKeys;

    private final boolean binary;

    private Values(Digest digest, List<?> parameters, boolean binary) {
        this(digest, parameters, binary, null);
    }

    private Values(Digest digest, List<?> parameters, boolean binary, long[] generatedKeys) {
        this.digest = digest;
        this.parameters = parameters;
        this.binary = binary;
        this.generatedKeys = generatedKeys;
        // Every slot has at least one literal, so as many literals as slots means slot i is
        // literal i: the common case (no IN list) needs no table.
        this.slotStart = digest.literals().size() == digest.slotCount() ? null : slotStarts(digest);
    }

    private static int[] slotStarts(Digest digest) {
        int[] starts = new int[digest.slotCount() + 1];
        List<Literal> literals = digest.literals();
        int slot = 0;
        for (int i = 0; i < literals.size(); i++) {
            while (slot <= literals.get(i).slot()) {
                starts[slot++] = i;
            }
        }
        while (slot <= digest.slotCount()) {
            starts[slot++] = literals.size();
        }
        return starts;
    }

    /** Index in the digest's literals of the first literal of {@code slot}. */
    private int start(int slot) {
        return slotStart == null ? slot : slotStart[slot];
    }

    /** How many values {@code slot} holds: one, or the length of a collapsed IN list. */
    public int size(int slot) {
        return start(slot + 1) - start(slot);
    }

    /** Values of a text-protocol statement: its literals. */
    public static Values of(Digest digest) {
        return new Values(digest, List.of(), false);
    }

    /**
     * Values of a prepared statement's execution: literals of its SQL and the bound parameters
     * ({@link Long}, {@link java.math.BigDecimal}, {@link Double}, {@link String}, {@code byte[]} or
     * {@code null}), in placeholder order.
     */
    public static Values of(Digest digest, List<?> parameters) {
        if (parameters.size() != digest.parameterCount()) {
            throw new IllegalArgumentException("statement has " + digest.parameterCount() + " placeholders, "
                    + parameters.size() + " values bound");
        }
        return new Values(digest, parameters, true);
    }

    /**
     * These values plus the keys the router generated for INSERT rows: {@code byRow[r]} is row
     * {@code r}'s key, 0 for a row that brings its own.
     */
    public Values withGeneratedKeys(long[] byRow) {
        return new Values(digest, parameters, binary, byRow.clone());
    }

    /** The generated key of INSERT row {@code row} (0-based); 0 when it has none. */
    public long generatedKey(int row) {
        return generatedKeys == null || row >= generatedKeys.length ? 0 : generatedKeys[row];
    }

    /** The first key generated for this execution (MySQL's LAST_INSERT_ID of the statement), or 0. */
    public long firstGeneratedKey() {
        if (generatedKeys != null) {
            for (long key : generatedKeys) {
                if (key != 0) {
                    return key;
                }
            }
        }
        return 0;
    }

    /** Whether these are a prepared statement's values (generated keys are then bound, not inlined). */
    public boolean binary() {
        return binary;
    }

    /** The values of one slot, in source order. */
    public List<Object> slot(int slot) {
        List<Object> out = new ArrayList<>(size(slot));
        for (int i = start(slot); i < start(slot + 1); i++) {
            out.add(value(digest.literals().get(i)));
        }
        return out;
    }

    /** The value of a one-value slot. */
    public Object scalar(int slot) {
        return value(digest.literals().get(start(slot)));
    }

    /** Whether a one-value slot is an integer literal of the SQL text (not a bound parameter). */
    public boolean isIntegerLiteral(int slot) {
        return digest.literals().get(start(slot)).kind() == LiteralKind.INTEGER;
    }

    private Object value(Literal literal) {
        return literal.kind() == LiteralKind.PARAMETER ? parameters.get(literal.parameter()) : digest.value(literal);
    }

    /** The client's text of a slot: from its first literal's start to its last literal's end. */
    String source(int slot) {
        List<Literal> literals = digest.literals();
        return digest.sql()
                .substring(
                        literals.get(start(slot)).start(),
                        literals.get(start(slot + 1) - 1).end());
    }

    /** Placeholder numbers inside a slot, in order. */
    void parametersOf(int slot, List<Integer> out) {
        for (int i = start(slot); i < start(slot + 1); i++) {
            Literal l = digest.literals().get(i);
            if (l.kind() == LiteralKind.PARAMETER) {
                out.add(l.parameter());
            }
        }
    }

    Digest digest() {
        return digest;
    }
}
