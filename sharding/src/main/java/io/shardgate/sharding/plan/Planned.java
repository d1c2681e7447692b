package io.shardgate.sharding.plan;

import io.shardgate.sharding.rule.Role;

/** The parts of a {@link Plan} a statement planner decides; {@link Planner} adds key and stats. */
record Planned(StatementKind kind, Role role, Route route, ShardSql sql, ShardSql scatterSql, MergeSpec merge) {

    static Planned of(StatementKind kind, Role role, Route route) {
        ShardSql verbatim = new ShardSql.Verbatim();
        // a write to every copy of a broadcast table changed its rows once, as the client sees it:
        // the first copy's affected rows, not their sum
        boolean dml = kind == StatementKind.INSERT || kind == StatementKind.UPDATE || kind == StatementKind.DELETE;
        MergeSpec merge = kind == StatementKind.SELECT || (dml && route instanceof Route.Broadcast)
                ? MergeSpec.CONCAT
                : MergeSpec.AFFECTED_ROWS;
        return new Planned(kind, role, route, verbatim, verbatim, merge);
    }

    /** The same plan restricted to the writer. */
    Planned onWriter() {
        return new Planned(kind, Role.WRITER, route, sql, scatterSql, merge);
    }

    static Planned refuse(StatementKind kind, String reason) {
        return of(kind, Role.WRITER, Route.Refuse.notSupported(reason));
    }
}
