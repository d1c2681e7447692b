package io.shardgate.router.execute;

import io.shardgate.router.frontend.SessionPort;
import io.shardgate.router.lease.BackendLease;
import java.util.List;

/**
 * MySQL's implicit commit of a BEGIN inside an open transaction, when that transaction reached
 * hostgroups other than the home one (best_effort): the BEGIN sent to the home hostgroup alone
 * would commit only the home part and leave the others open, their later statements still in the
 * old transaction. So COMMIT runs first on every hostgroup with a transaction open ({@link
 * TransactionBroadcast}), then the client's BEGIN as usual on the home hostgroup. A COMMIT that
 * fails ends the command with its error, as MySQL's BEGIN does when its implicit commit fails; the
 * other hostgroups still got their COMMIT, so none stays in the old transaction.
 */
final class ImplicitCommit {
    private ImplicitCommit() {}

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
     * Commits on each of {@code open}, then runs {@code begin} (the client's BEGIN on the home
     * hostgroup, which then has no transaction to end); on a failed COMMIT answers its error and
     * {@code dropped} releases what the BEGIN held.
     */
    static void run(SessionPort session, List<BackendLease> open, Runnable begin, Runnable dropped) {
        session.leases().diagnosticsUnknown(); // several server sessions ran the COMMIT
        new TransactionBroadcast(
                        session,
                        open,
                        "COMMIT",
                        error -> {
                            if (error == null) {
                                session.transaction().end();
                                session.resumeRouted(begin);
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
