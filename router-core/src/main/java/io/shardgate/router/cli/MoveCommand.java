package io.shardgate.router.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code shardgate admin move}: online resharding from the command line, over a router's HTTP API
 * (docs/moves.md). Exit codes: 0 done, 1 refused, failed or unreachable, 2 usage.
 */
@Command(
        name = "move",
        mixinStandardHelpOptions = true,
        description = "Online resharding: start, list, show and cancel moves of hash buckets and whole tables;"
                + " reverse or clean up a done whole-table move (docs/moves.md).",
        subcommands = {
            MoveCommand.Start.class,
            MoveCommand.ListMoves.class,
            MoveCommand.Show.class,
            MoveCommand.Cancel.class,
            MoveCommand.Reverse.class,
            MoveCommand.Cleanup.class
        })
final class MoveCommand implements Runnable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> ENDED = Set.of("done", "reversed", "failed", "cancelled");

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** Prints an answer that is not a success; returns the exit code. */
    private static int failed(ClusterEndpoint.Answer answer, PrintWriter err) {
        err.println("shardgate admin move: " + answer.status() + " "
                + answer.body().path("error").asText());
        return 1;
    }

    /** What a successful answer prints. */
    @FunctionalInterface
    private interface Shown {
        void print(JsonNode body, PrintWriter out) throws Exception;
    }

    /** One request to a router's moves routes; a 200 answer is {@code shown}; returns the exit code. */
    private static int request(
            AdminCommand.Target target,
            picocli.CommandLine.Model.CommandSpec spec,
            String method,
            String path,
            Shown shown)
            throws Exception {
        try (ClusterEndpoint endpoint = target.open(null)) {
            ClusterEndpoint.Answer answer = endpoint.moves(method, path, null);
            if (answer.status() != 200) {
                return failed(answer, spec.commandLine().getErr());
            }
            shown.print(answer.body(), spec.commandLine().getOut());
            return 0;
        }
    }

    /** One line of a move: id, state, what moves where, progress. */
    static String line(JsonNode m) {
        return m.path("id").asText() + "  " + m.path("state").asText() + "  "
                + m.path("schema").asText() + "."
                + m.path("tables") + "  buckets " + m.path("what").asText() + "  " + m.path("sources") + " -> "
                + m.path("target").asInt() + "  " + m.path("progress")
                + (m.hasNonNull("error") ? "  error: " + m.path("error").asText() : "");
    }

    @Command(
            name = "start",
            mixinStandardHelpOptions = true,
            description = "Start moving buckets or a whole table to a hostgroup.")
    static final class Start implements Callable<Integer> {
        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Mixin
        AdminCommand.Target target = new AdminCommand.Target();

        @Option(names = "--schema", required = true, description = "the table's schema")
        String schema;

        @Option(
                names = "--table",
                required = true,
                description = "a hash-sharded table (its binding group moves too) or a table of a 'table' rule")
        String table;

        @Option(
                names = "--buckets",
                required = true,
                paramLabel = "LO-HI|table",
                description = "the buckets, e.g. 512-1023, or table: the whole table of a 'table' rule")
        String buckets;

        @Option(names = "--to", required = true, paramLabel = "HOSTGROUP", description = "the hostgroup they go to")
        int to;

        @Option(
                names = "--copy-rows-per-second",
                paramLabel = "N",
                description = "the most source rows the copy reads a second (default: no limit)",
                defaultValue = "0")
        long copyRowsPerSecond;

        @Option(names = "--wait", description = "wait until the move ends, printing its state as it changes")
        boolean await;

        @Override
        public Integer call() throws Exception {
            try (ClusterEndpoint endpoint = target.open(null)) {
                ObjectNode body = JSON.createObjectNode()
                        .put("schema", schema)
                        .put("table", table)
                        .put("buckets", buckets)
                        .put("to", to)
                        .put("copy_rows_per_second", copyRowsPerSecond);
                ClusterEndpoint.Answer answer = endpoint.moves("POST", "/api/moves", body);
                if (answer.status() != 202) {
                    return failed(answer, spec.commandLine().getErr());
                }
                String id = answer.body().path("id").asText();
                PrintWriter out = spec.commandLine().getOut();
                out.println("move " + id + " started");
                if (!await) {
                    return 0;
                }
                String shown = null;
                while (true) {
                    ClusterEndpoint.Answer now = endpoint.moves("GET", "/api/moves/" + id, null);
                    if (now.status() != 200) {
                        return failed(now, spec.commandLine().getErr());
                    }
                    String state = now.body().path("state").asText();
                    if (!state.equals(shown)) {
                        out.println(line(now.body()));
                        shown = state;
                    }
                    if (ENDED.contains(state)) {
                        return state.equals("done") ? 0 : 1;
                    }
                    Thread.sleep(Duration.ofMillis(500).toMillis());
                }
            }
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Every move, oldest first.")
    static final class ListMoves implements Callable<Integer> {
        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Mixin
        AdminCommand.Target target = new AdminCommand.Target();

        @Override
        public Integer call() throws Exception {
            return request(target, spec, "GET", "/api/moves", (body, out) -> {
                for (JsonNode m : body.path("moves")) {
                    out.println(line(m));
                }
            });
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "One move's record as JSON.")
    static final class Show implements Callable<Integer> {
        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Mixin
        AdminCommand.Target target = new AdminCommand.Target();

        @Parameters(paramLabel = "ID", description = "the move, e.g. m-0000000003")
        String id;

        @Override
        public Integer call() throws Exception {
            return request(
                    target,
                    spec,
                    "GET",
                    "/api/moves/" + id,
                    (body, out) ->
                            out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(body)));
        }
    }

    /** A POST on one move's action route ({@code /api/moves/{id}/<action>}). */
    private abstract static class Action implements Callable<Integer> {
        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Mixin
        AdminCommand.Target target = new AdminCommand.Target();

        @Parameters(paramLabel = "ID", description = "the move, e.g. m-0000000003")
        String id;

        private final String action;
        private final String done;

        /** @param action the route's last segment; @param done what a success prints after "move ID " */
        Action(String action, String done) {
            this.action = action;
            this.done = done;
        }

        @Override
        public Integer call() throws Exception {
            return request(
                    target,
                    spec,
                    "POST",
                    "/api/moves/" + id + "/" + action,
                    (body, out) -> out.println("move " + id + " " + done));
        }
    }

    @Command(name = "cancel", mixinStandardHelpOptions = true, description = "Cancel a move (not while it cuts over).")
    static final class Cancel extends Action {
        Cancel() {
            super("cancel", "cancelled");
        }
    }

    @Command(
            name = "reverse",
            mixinStandardHelpOptions = true,
            description = "Switch a done whole-table move back to its source (its reverse stream kept the source"
                    + " in step).")
    static final class Reverse extends Action {
        Reverse() {
            super("reverse", "reversing (show it to see it reversed)");
        }
    }

    @Command(
            name = "cleanup",
            mixinStandardHelpOptions = true,
            description = "Stop a done whole-table move's reverse stream and delete the source's rows of the table"
                    + " (it cannot be reversed after).")
    static final class Cleanup extends Action {
        Cleanup() {
            super("cleanup", "cleaning up its source (show it to see it done)");
        }
    }
}
