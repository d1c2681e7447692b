package io.shardgate.it.differential;

/**
 * How one result column compares between the router and the oracle: exactly; as its collation
 * compares (where MySQL may return any member of a group of equal strings: GROUP BY, DISTINCT,
 * MIN/MAX, UNION); or as a DOUBLE within a relative tolerance (where the order of addition may
 * legitimately differ: SUM/AVG of DOUBLE, STD/VARIANCE).
 */
record CellMode(Kind kind, String collation) {
    enum Kind {
        EXACT,
        COLLATED,
        FLOAT
    }

    static final CellMode EXACT = new CellMode(Kind.EXACT, null);
    static final CellMode FLOAT = new CellMode(Kind.FLOAT, null);

    static CellMode collated(String collation) {
        return new CellMode(Kind.COLLATED, collation);
    }

    @Override
    public String toString() {
        return kind == Kind.COLLATED
                ? "collated(" + collation + ")"
                : kind.name().toLowerCase(java.util.Locale.ROOT);
    }
}
