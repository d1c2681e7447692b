package io.shardgate.it.differential;

import java.util.Random;

/**
 * The grammar's root: picks a statement class by weight and draws one statement of it. Seeded, so a
 * seed and a statement index reproduce a statement exactly.
 */
final class StatementGenerator {
    private final Clauses g;
    private final ReadGenerator reads;
    private final CompositeGenerator composite;
    private final WriteGenerator writes;
    private final SessionGenerator sessions;

    StatementGenerator(long seed) {
        Random r = new Random(seed);
        g = new Clauses(r);
        reads = new ReadGenerator(g);
        composite = new CompositeGenerator(g);
        writes = new WriteGenerator(g, r);
        sessions = new SessionGenerator(g, reads, writes);
    }

    /** Whether the next statement runs as a server-side prepared statement (MySQL Connector/J). */
    boolean prepared() {
        return g.chance(25);
    }

    /** 0 MySQL Connector/J, 1 MariaDB Connector/J, 2 MySQL Connector/J as a latin1 client (text protocol). */
    int driver() {
        int k = g.between(0, 99);
        return k < 15 ? 1 : k < 27 ? 2 : 0;
    }

    GeneratedStatement next(boolean writesAllowed) {
        int k = g.between(0, writesAllowed ? 99 : 79);
        if (k < 8) {
            return reads.plain("read.point", true, false);
        }
        if (k < 14) {
            return reads.plain("read.scatter", false, false);
        }
        if (k < 20) {
            return reads.plain("read.order-limit", g.chance(30), true);
        }
        if (k < 24) {
            return reads.aggregate(0);
        }
        if (k < 27) {
            return reads.aggregate(1);
        }
        if (k < 30) {
            return reads.aggregate(2);
        }
        if (k < 38) {
            return reads.groupBy();
        }
        if (k < 42) {
            return reads.distinct();
        }
        if (k < 45) {
            return reads.window();
        }
        if (k < 49) {
            return composite.join(0);
        }
        if (k < 52) {
            return composite.join(1);
        }
        if (k < 56) {
            return composite.join(2);
        }
        if (k < 58) {
            return composite.join(3);
        }
        if (k < 62) {
            return composite.derived();
        }
        if (k < 66) {
            return composite.union();
        }
        if (k < 70) {
            return composite.subquery();
        }
        if (k < 76) {
            return sessions.next();
        }
        if (k < 80) {
            return reads.plain("read.point", true, g.chance(30));
        }
        if (k < 86) {
            return writes.insert();
        }
        if (k < 91) {
            return writes.updateOrDelete(true);
        }
        if (k < 95) {
            return writes.updateOrDelete(false);
        }
        if (k < 96) {
            return writes.keyChange();
        }
        if (k < 98) {
            return writes.insertSelect();
        }
        return writes.subqueryWrite();
    }
}
