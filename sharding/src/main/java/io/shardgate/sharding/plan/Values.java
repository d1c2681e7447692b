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

    private Values(Digest digest, List<?> parameters) {
        this.digest = digest;
        this.parameters = parameters;
        this.slotStart = new int[digest.slotCount() + 1];
        List<Literal> literals = digest.literals();
        int slot = 0;
        for (int i = 0; i < literals.size(); i++) {
            while (slot <= literals.get(i).slot()) {
                slotStart[slot++] = i;
            }
        }
        while (slot <= digest.slotCount()) {
            slotStart[slot++] = literals.size();
        }
    }

    /** Values of a text-protocol statement: its literals. */
    public static Values of(Digest digest) {
        return new Values(digest, List.of());
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
        return new Values(digest, parameters);
    }

    /** The values of one slot, in source order. */
    public List<Object> slot(int slot) {
        List<Object> out = new ArrayList<>(slotStart[slot + 1] - slotStart[slot]);
        for (int i = slotStart[slot]; i < slotStart[slot + 1]; i++) {
            out.add(value(digest.literals().get(i)));
        }
        return out;
    }

    /** The value of a one-value slot. */
    public Object scalar(int slot) {
        return value(digest.literals().get(slotStart[slot]));
    }

    private Object value(Literal literal) {
        return literal.kind() == LiteralKind.PARAMETER ? parameters.get(literal.parameter()) : digest.value(literal);
    }

    /** The client's text of a slot: from its first literal's start to its last literal's end. */
    String source(int slot) {
        List<Literal> literals = digest.literals();
        return digest.sql()
                .substring(
                        literals.get(slotStart[slot]).start(),
                        literals.get(slotStart[slot + 1] - 1).end());
    }

    /** Placeholder numbers inside a slot, in order. */
    void parametersOf(int slot, List<Integer> out) {
        for (int i = slotStart[slot]; i < slotStart[slot + 1]; i++) {
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
