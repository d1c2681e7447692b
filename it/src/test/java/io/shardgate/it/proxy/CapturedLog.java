package io.shardgate.it.proxy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Every line the in-process router logs while this is open, as formatted (message with its
 * arguments, then each cause's class and message): a logback {@link ListAppender} on the root
 * logger, with Shardgate's loggers lowered to {@code level} so DEBUG lines are checked too.
 */
final class CapturedLog implements AutoCloseable {
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final Logger shardgate = (Logger) LoggerFactory.getLogger("io.shardgate");
    private final Level previous;

    private CapturedLog(Level level) {
        previous = shardgate.getLevel();
        shardgate.setLevel(level);
        appender.setContext(root.getLoggerContext());
        appender.start();
        root.addAppender(appender);
    }

    /** Starts capturing, with {@code io.shardgate.*} logging at {@code level} until closed. */
    static CapturedLog start(Level level) {
        return new CapturedLog(level);
    }

    /** The lines so far: level, logger, message and causes. */
    List<String> lines() {
        List<String> lines = new ArrayList<>();
        // AppenderBase.doAppend adds under the appender's lock
        synchronized (appender) {
            for (ILoggingEvent event : List.copyOf(appender.list)) {
                StringBuilder line = new StringBuilder()
                        .append(event.getLevel())
                        .append(' ')
                        .append(event.getLoggerName())
                        .append(" - ")
                        .append(event.getFormattedMessage());
                for (IThrowableProxy t = event.getThrowableProxy(); t != null; t = t.getCause()) {
                    line.append(" | ").append(t.getClassName()).append(": ").append(t.getMessage());
                }
                lines.add(line.toString());
            }
        }
        return lines;
    }

    @Override
    public void close() {
        root.detachAppender(appender);
        appender.stop();
        shardgate.setLevel(previous);
    }
}
