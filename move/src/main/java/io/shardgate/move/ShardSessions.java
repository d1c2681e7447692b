package io.shardgate.move;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The session settings the mover's connections run with, so that what it reads from one shard
 * writes the same values on another.
 */
public final class ShardSessions {
    /**
     * Strict, so a target table that differs from the source fails the write instead of truncating;
     * NO_AUTO_VALUE_ON_ZERO, so a row whose AUTO_INCREMENT column holds 0 keeps it; ALLOW_INVALID_DATES
     * and no NO_ZERO_DATE, so dates the source holds (it may run with a laxer mode) are written as
     * they are.
     */
    static final String WRITE_SQL_MODE =
            "STRICT_ALL_TABLES,NO_AUTO_VALUE_ON_ZERO,ALLOW_INVALID_DATES,NO_ENGINE_SUBSTITUTION";

    private ShardSessions() {}

    /** A reading session: utf8mb4 for keys bound as text and TIMESTAMPs in UTC. */
    public static void forReading(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute("SET NAMES utf8mb4, time_zone = '+00:00'");
        }
    }

    /** How long the mover's locking reads wait for a row lock at a time ({@link LockWaits} tries again). */
    static final int LOCK_WAIT_SECONDS = 1;

    /**
     * A session for the source's locking reads ({@link RowReader#committed}): the reading settings,
     * and a row lock waited for {@value #LOCK_WAIT_SECONDS} s at most. A statement that waits for one
     * row holds its shared locks on the rows it read before; InnoDB's default (50 s) would make the
     * clients writing those rows wait as long behind the mover (and fail with 1205).
     */
    public static void forLockingReads(Connection connection) throws SQLException {
        forReading(connection);
        try (Statement s = connection.createStatement()) {
            s.execute("SET SESSION innodb_lock_wait_timeout = " + LOCK_WAIT_SECONDS);
        }
    }

    /**
     * A writing session: the reading settings plus {@link #WRITE_SQL_MODE}, foreign key checks off
     * (rows of related tables arrive in any order; they were checked on the source), and explicit
     * transactions.
     */
    public static void forWriting(Connection connection) throws SQLException {
        forReading(connection);
        try (Statement s = connection.createStatement()) {
            s.execute("SET sql_mode = '" + WRITE_SQL_MODE + "', foreign_key_checks = 0");
        }
        connection.setAutoCommit(false);
    }
}
