package io.shardgate.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardgate.it.tools.ExternalTool;
import io.shardgate.it.tools.ToolRun;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@code mariadb} command-line client through Shardgate prints what it prints against the shard.
 * Skipped only when the CLI is not installed; CI installs it (Debian package mariadb-client).
 */
@ExtendWith(ProxyClusterExtension.class)
class MariaDbCliIT {

    private static ProxyCluster cluster;
    private static Path cli;

    @BeforeAll
    static void createTable(ProxyCluster shared) throws SQLException {
        cluster = shared;
        cli = ExternalTool.MARIADB_CLI.require();
        try (Connection c = cluster.direct();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS cli_items");
            s.execute("CREATE TABLE cli_items (id INT PRIMARY KEY, name VARCHAR(40), price DECIMAL(8,2),"
                    + " added DATETIME(6), tag VARCHAR(10)) DEFAULT CHARSET=utf8mb4");
            s.execute(
                    "INSERT INTO cli_items VALUES (1, 'caf\u00e9 \uD83D\uDE00', 3.50, '2024-02-29 12:00:00.000001', NULL),"
                            + " (2, 'tea', 2.25, '2024-03-01 08:30:00.5', 'hot')");
        }
    }

    @Test
    void queriesLikeOnTheShard() throws Exception {
        String sql = "SELECT * FROM cli_items ORDER BY id; SELECT COUNT(*) AS n, SUM(price) AS total FROM cli_items;"
                + " SHOW COLUMNS FROM cli_items";
        ToolRun viaRouter = mariadb(cluster.routerPort(), ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, sql);
        ToolRun direct =
                mariadb(cluster.backend().port(), ProxyCluster.BACKEND_USER, ProxyCluster.BACKEND_PASSWORD, sql);

        assertThat(viaRouter.exitCode()).as("%s", viaRouter).isZero();
        assertThat(viaRouter.stdout()).isEqualTo(direct.stdout());
        assertThat(viaRouter.stdout())
                .contains("1\tcaf\u00e9 \uD83D\uDE00\t3.50\t2024-02-29 12:00:00.000001\tNULL")
                .contains("2\t5.75");
    }

    @Test
    void writesInATransactionAndReportsErrorsLikeTheShard() throws Exception {
        String write = "START TRANSACTION; INSERT INTO cli_items VALUES (3, 'juice', 4.00, NOW(6), NULL); COMMIT;"
                + " SELECT name FROM cli_items WHERE id = 3";
        ToolRun written = mariadb(cluster.routerPort(), ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, write);
        assertThat(written.exitCode()).as("%s", written).isZero();
        assertThat(written.stdout()).isEqualTo("name\njuice\n");

        String broken = "SELECT * FROM no_such_table";
        ToolRun viaRouter = mariadb(cluster.routerPort(), ProxyCluster.APP_USER, ProxyCluster.APP_PASSWORD, broken);
        ToolRun direct =
                mariadb(cluster.backend().port(), ProxyCluster.BACKEND_USER, ProxyCluster.BACKEND_PASSWORD, broken);
        assertThat(viaRouter.exitCode()).isEqualTo(direct.exitCode()).isEqualTo(1);
        assertThat(viaRouter.stderr()).isEqualTo(direct.stderr()).contains("ERROR 1146 (42S02)");
    }

    private static ToolRun mariadb(int port, String user, String password, String sql) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                cli.toString(),
                "--no-defaults",
                "--protocol=TCP",
                "--host=127.0.0.1",
                "--port=" + port,
                "--user=" + user,
                "--password=" + password,
                "--database=" + ProxyCluster.SCHEMA,
                "--default-character-set=utf8mb4",
                "--batch",
                "--execute=" + sql));
        return ToolRun.run(Duration.ofMinutes(2), command);
    }
}
