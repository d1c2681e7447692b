package io.shardgate.it.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Shardgate router in its own JVM ({@code java -cp <test class path> io.shardgate.router.Main
 * run --config FILE}), so a test can SIGKILL it as an operator's {@code kill -9} or the OOM killer
 * would. Its output goes to a log file per start; Netty leak detection runs at PARANOID there too.
 */
public final class RouterProcess implements AutoCloseable {
    /**
     * How long a start may take before the test gives up: generous, as a shared 2-core machine under
     * a load of 20 and more has taken 90 s (a long kill run); the failure shows the JVM's threads.
     */
    private static final int START_SECONDS = 180;

    private final Path config;
    private final Path logs;
    private final int port;
    private Process process;
    private int starts;

    /** A router for {@code yaml}, which must name {@code port} as its MySQL port. */
    public RouterProcess(Path dir, String yaml, int port) throws IOException {
        this.logs = Files.createDirectories(dir.resolve("router-logs"));
        this.config = dir.resolve("router.yaml");
        this.port = port;
        Files.writeString(config, yaml, StandardCharsets.UTF_8);
    }

    /** A TCP port on 127.0.0.1 that was free a moment ago. */
    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    public int port() {
        return port;
    }

    /** Starts the JVM and returns once its MySQL port accepts connections. */
    public void start() throws IOException, InterruptedException {
        starts++;
        Path log = logs.resolve("router-" + starts + ".log");
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        process = new ProcessBuilder(List.of(
                        java.toString(),
                        "-Xmx256m",
                        "-Dio.netty.leakDetection.level=PARANOID",
                        "-cp",
                        classPath,
                        "io.shardgate.router.Main",
                        "run",
                        "--config",
                        config.toString()))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        while (!accepts()) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "router exited with " + process.exitValue() + ":\n" + Files.readString(log));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("router (start " + starts + ") not listening after " + START_SECONDS
                        + " s:\n" + Files.readString(log) + "\nits threads:\n" + threadDump());
            }
            Thread.sleep(100);
        }
    }

    /** The starting JVM's threads ({@code jcmd <pid> Thread.print}): what a start that hangs waits for. */
    private String threadDump() {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        try {
            Process dump = new ProcessBuilder(jcmd.toString(), String.valueOf(process.pid()), "Thread.print")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(dump.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            dump.waitFor(30, TimeUnit.SECONDS);
            return out;
        } catch (IOException e) {
            return "(jcmd failed: " + e + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(interrupted)";
        }
    }

    private boolean accepts() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** SIGKILL: no shutdown hook, no graceful close; the kernel resets the router's sockets. */
    public void kill() {
        process.destroyForcibly();
        process.onExit().orTimeout(30, TimeUnit.SECONDS).join();
    }

    /** SIGTERM, as Kubernetes, systemd or {@code docker stop} send it: the router drains; returns at once. */
    public void terminate() {
        process.destroy();
    }

    /** Waits up to {@code seconds} for the JVM to end; true when it has. */
    public boolean awaitExit(long seconds) throws InterruptedException {
        return process.waitFor(seconds, TimeUnit.SECONDS);
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** Every start's output, for the "LEAK:" check. */
    public String output() throws IOException {
        StringBuilder all = new StringBuilder();
        for (int i = 1; i <= starts; i++) {
            all.append(Files.readString(logs.resolve("router-" + i + ".log"), StandardCharsets.UTF_8));
        }
        return all.toString();
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy(); // SIGTERM: the shutdown hook closes the router
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
