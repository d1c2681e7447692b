package io.shardgate.router.execute;

import io.shardgate.protocol.type.ServerStatus;
import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.lease.BackendLease;
import io.shardgate.sharding.digest.Digest;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * MySQL's implicit commit (a BEGIN inside an open transaction, DDL, account statements, table
 * maintenance, {@code SET autocommit = 1} after 0...), when the transaction reached hostgroups other
 * than the one the statement runs on (best_effort): the statement alone would commit only its own
 * hostgroup's part and leave the others open, their later statements still in the old transaction
 * and their changes lost when the session ends. So COMMIT runs first on every hostgroup with a
 * transaction open ({@link TransactionBroadcast}), then the client's statement as usual. A COMMIT
 * that fails ends the command with its error, as MySQL's statement does when its implicit commit
 * fails; the other hostgroups still got their COMMIT, so none stays in the old transaction.
 */
final class ImplicitCommit {
    /**
     * First words of the statements that commit implicitly (MariaDB's list; BEGIN has its own path;
     * UNLOCK TABLES commits only under LOCK TABLES, which committed already). Checked on MariaDB 10.11 (BEGIN; INSERT; the statement;
     * ROLLBACK): CHECK, ANALYZE, OPTIMIZE, REPAIR TABLE, FLUSH, RESET, LOCK TABLES, CREATE / DROP /
     * TRUNCATE TABLE commit; CACHE INDEX, LOAD INDEX INTO CACHE, CHECKSUM TABLE and the TEMPORARY forms do not.
     */
    private static final Set<String> COMMITTING = Set.of(
            "ALTER",
            "CREATE",
            "DROP",
            "RENAME",
            "TRUNCATE",
            "GRANT",
            "REVOKE",
            "ANALYZE",
            "CHECK",
            "OPTIMIZE",
            "REPAIR",
            "FLUSH",
            "RESET",
            "INSTALL",
            "UNINSTALL",
            "CHANGE",
            "START",
            "STOP",
            "SHUTDOWN",
            "LOCK");
    /** CREATE [OR REPLACE] TEMPORARY ..., DROP TEMPORARY ...: no commit. */
    private static final Pattern TEMPORARY =
            Pattern.compile("(?i)\\(*\\s*(?:CREATE\\s+(?:OR\\s+REPLACE\\s+)?|DROP\\s+)TEMPORARY\\b.*", Pattern.DOTALL);
    /** {@code autocommit = value} in a SET: the value. */
    private static final Pattern AUTOCOMMIT =
            Pattern.compile("\\bautocommit\\s*:?=\\s*([^,;\\s]+)", Pattern.CASE_INSENSITIVE);

    private ImplicitCommit() {}

    /**
     * Whether the statement commits the session's open transaction implicitly before it runs
     * ({@code status}: the server status flags the session shows). A SET counts when it may switch
     * autocommit on while it is off (a value other than 0 / OFF / FALSE); CREATE / DROP TEMPORARY
     * TABLE do not commit, nor does anything else not on MariaDB's list.
     */
    static boolean causedBy(Digest digest, int status) {
        if (digest.startsWith("SET")) {
            return (status & ServerStatus.SERVER_STATUS_AUTOCOMMIT) == 0 && turnsAutocommitOn(digest.sql());
        }
        String text = digest.text();
        int start = 0;
        while (start < text.length() && (text.charAt(start) == '(' || text.charAt(start) == ' ')) {
            start++;
        }
        int end = start;
        while (end < text.length() && Character.isLetter(text.charAt(end))) {
            end++;
        }
        String first = text.substring(start, end).toUpperCase(Locale.ROOT);
        if (first.equals("START")) { // START SLAVE / REPLICA; START TRANSACTION is a BEGIN, handled as one
            return !text.regionMatches(true, end, " TRANSACTION", 0, 12);
        }
        return COMMITTING.contains(first) && !TEMPORARY.matcher(text).matches();
    }

    static boolean turnsAutocommitOn(String sql) {
        Matcher m = AUTOCOMMIT.matcher(sql);
        while (m.find()) {
            String value = m.group(1).replace("'", "").replace("\"", "").toUpperCase(Locale.ROOT);
            if (!(value.equals("0") || value.equals("OFF") || value.equals("FALSE"))) {
                return true;
            }
        }
        return false;
    }

    /** Whether a BEGIN must first commit on the {@code open} hostgroups: one of them is not {@code home}. */
    static boolean needed(List<Integer> open, int home) {
        for (int hostgroup : open) {
            if (hostgroup != home) {
                return true;
            }
        }
        return false;
    }

    /**
     * Commits on each of {@code open}, then runs {@code statement} (the client's BEGIN on the home
     * hostgroup, which then has no transaction to end, or its statement that commits implicitly); on
     * a failed COMMIT answers its error and {@code dropped} releases what the statement held.
     */
    static void run(SessionPort session, List<BackendLease> open, Runnable statement, Runnable dropped) {
        session.leases().diagnosticsUnknown(); // several server sessions ran the COMMIT
        new TransactionBroadcast(
                        session,
                        open,
                        "COMMIT",
                        error -> {
                            if (error == null) {
                                session.transaction().end();
                                session.resumeRouted(statement);
                            } else {
                                session.transaction().end();
                                dropped.run();
                                session.finishRoutedWith(error);
                            }
                        },
                        dropped)
                .start();
    }
}
