package io.shardgate.sharding.plan;

import io.shardgate.sharding.rule.Role;

/** The parts of a {@link Plan} a statement planner decides; {@link Planner} adds key and stats. */
record Planned(StatementKind kind, Role role, Route route, ShardSql sql, ShardSql scatterSql, MergeSpec merge) {

    static Planned of(StatementKind kind, Role role, Route route) {
        ShardSql verbatim = new ShardSql.Verbatim();
        MergeSpec merge = kind == StatementKind.SELECT ? MergeSpec.CONCAT : MergeSpec.AFFECTED_ROWS;
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
