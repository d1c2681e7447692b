package io.shardgate.router;

import io.shardgate.router.cli.AdminCommand;
import io.shardgate.router.cli.PrintJvmOptionsCommand;
import io.shardgate.router.cli.RouterConfigFile;
import io.shardgate.router.config.ConfigException;
import io.shardgate.router.config.RouterConfig;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The {@code shardgate} command line: {@code run --config FILE}, {@code admin ...}, {@code
 * print-jvm-options --config FILE}, {@code --help}, {@code --version}.
 */
@Command(
        name = "shardgate",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "MySQL sharding router and query proxy.",
        subcommands = {Main.Run.class, AdminCommand.class, PrintJvmOptionsCommand.class, CommandLine.HelpCommand.class},
        footer = {"", "`bin/shardgate demo` starts a complete local cluster (embedded MariaDB shards) around it."})
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line as {@code bin/shardgate} runs it. */
    public static CommandLine commandLine() {
        return new CommandLine(new Main())
                // an unreachable endpoint or ZooKeeper is a message for the operator, not a stack trace
                .setExecutionExceptionHandler((e, line, parsed) -> {
                    line.getErr().println("shardgate: " + describe(e));
                    return 1;
                });
    }

    /** The first message along the causes, never "null": an exception's kind when none has one. */
    static String describe(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                return t.getMessage();
            }
        }
        return failure.getClass().getName() + " (no message)";
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** {@code shardgate run --config FILE}: serve until stopped. */
    @Command(name = "run", mixinStandardHelpOptions = true, description = "Start the router with a YAML config.")
    static final class Run implements Callable<Integer> {
        @Mixin
        RouterConfigFile file;

        @Option(
                names = "--publish-config",
                description = "when the cluster (ZooKeeper) already holds a configuration that differs from the"
                        + " file's hostgroups, users, schemas, query_rules or cache, publish the file's as the next"
                        + " version (validated like any new version) instead of running the stored one;"
                        + " same as zookeeper.publish_on_start: true")
        boolean publishConfig;

        /** The file as the router starts with it. */
        RouterConfig configuration() {
            RouterConfig parsed = file.load();
            return publishConfig ? parsed.withPublishOnStart() : parsed;
        }

        @Override
        public Integer call() {
            Shardgate router;
            Duration grace;
            try {
                RouterConfig config = configuration();
                grace = Duration.ofMillis(config.server().drainTimeoutMillis());
                router = Shardgate.start(config);
            } catch (ConfigException e) {
                System.err.println("shardgate: " + e.getMessage());
                return 2;
            }
            // SIGTERM (Kubernetes, systemd, docker stop): drain, then stop
            Runtime.getRuntime()
                    .addShutdownHook(new Thread(
                            () -> {
                                router.drain(grace);
                                router.close();
                            },
                            "sg-shutdown"));
            router.awaitClose();
            return 0;
        }
    }

    /** Reads the version the jar was built as. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Main.class.getPackage().getImplementationVersion();
            return new String[] {"shardgate " + (version == null ? "development build" : version)};
        }
    }
}
