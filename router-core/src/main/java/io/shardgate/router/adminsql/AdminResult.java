package io.shardgate.router.adminsql;

import io.shardgate.router.net.TextResultSet;
import java.util.List;

/** What an admin statement answers: rows, or an OK with affected rows and an info message. */
sealed interface AdminResult {
    record Rows(List<TextResultSet.Column> columns, List<List<Object>> rows) implements AdminResult {}

    record Done(long affectedRows, String info) implements AdminResult {}
}
