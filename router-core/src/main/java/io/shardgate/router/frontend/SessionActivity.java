package io.shardgate.router.frontend;

import io.shardgate.protocol.type.Command;
import java.util.concurrent.TimeUnit;

/**
 * What a session is doing for PROCESSLIST's Command, Time and Info columns: the command in flight
 * and its text since it was dispatched, or "Sleep" since the last one ended. Event-loop confined.
 */
final class SessionActivity {
    private String command = "Sleep";
    private String info;
    private long sinceNanos = System.nanoTime();
    /** Counts the commands dispatched: tells one command from the next with the same text. */
    private long serial;

    /** A command was dispatched; {@code info} is its SQL text, or null. */
    void started(Command command, String info) {
        this.serial++;
        this.command = name(command);
        this.info = info;
        this.sinceNanos = System.nanoTime();
    }

    /** The session has nothing in flight (called whenever it looks for its next command). */
    void idle() {
        if (info != null || !command.equals("Sleep")) {
            command = "Sleep";
            info = null;
            sinceNanos = System.nanoTime();
        }
    }

    /** Which command this is (see {@link #started}); changes with each one. */
    long serial() {
        return serial;
    }

    String command() {
        return command;
    }

    String info() {
        return info;
    }

    long seconds() {
        return TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - sinceNanos);
    }

    /** MySQL's name of a command in PROCESSLIST (sql/sql_parse.cc command_name). */
    static String name(Command command) {
        return switch (command) {
            case COM_QUERY -> "Query";
            case COM_STMT_PREPARE -> "Prepare";
            case COM_STMT_EXECUTE -> "Execute";
            case COM_STMT_FETCH -> "Fetch";
            case COM_STMT_CLOSE -> "Close stmt";
            case COM_STMT_RESET -> "Reset stmt";
            case COM_STMT_SEND_LONG_DATA -> "Long Data";
            case COM_INIT_DB -> "Init DB";
            case COM_FIELD_LIST -> "Field List";
            case COM_STATISTICS -> "Statistics";
            case COM_PING -> "Ping";
            case COM_CHANGE_USER -> "Change user";
            case COM_RESET_CONNECTION -> "Reset connection";
            case COM_SET_OPTION -> "Set option";
            case COM_PROCESS_INFO -> "Processlist";
            default -> "Query";
        };
    }
}
