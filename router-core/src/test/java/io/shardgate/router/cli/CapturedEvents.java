package io.shardgate.router.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;

/** Log events of every logger while open (a logback list appender on the root logger). */
final class CapturedEvents implements AutoCloseable {
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    private CapturedEvents() {
        appender.setContext(root.getLoggerContext());
        appender.start();
        root.addAppender(appender);
    }

    static CapturedEvents start() {
        return new CapturedEvents();
    }

    /** {@code LEVEL logger - message} of the events logged by loggers under these prefixes. */
    List<String> from(String... prefixes) {
        synchronized (appender) {
            return appender.list.stream()
                    .filter(e ->
                            Stream.of(prefixes).anyMatch(p -> e.getLoggerName().startsWith(p)))
                    .map(e -> e.getLevel() + " " + e.getLoggerName() + " - " + e.getFormattedMessage())
                    .toList();
        }
    }

    /** Undoes what the CLI's ZooKeeper mode set, for the tests that run after in this JVM. */
    static void restoreZooKeeperLevels() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.getLogger("org.apache.zookeeper").setLevel(Level.WARN); // as logback.xml
        context.getLogger("org.apache.curator").setLevel(null);
        context.getLogger("io.shardgate.admin.store").setLevel(null);
    }

    @Override
    public void close() {
        root.detachAppender(appender);
        appender.stop();
    }
}
