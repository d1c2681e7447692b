package io.shardgate.router.cli;

import io.shardgate.router.config.RouterConfig;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The router's YAML file as {@code run} and {@code print-jvm-options} take it ({@code --config FILE}). */
public final class RouterConfigFile {
    @Option(
            names = {"-c", "--config"},
            required = true,
            paramLabel = "FILE",
            description = "YAML configuration file")
    Path file;

    /** Reads and validates the file; throws {@link io.shardgate.router.config.ConfigException} naming every problem. */
    public RouterConfig load() {
        return RouterConfig.load(file);
    }
}
