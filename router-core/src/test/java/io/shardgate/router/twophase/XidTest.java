package io.shardgate.router.twophase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class XidTest {

    @Test
    void branchIdNamesTheTransactionItsMetadataManagerTheHostgroupAndShardgatesFormat() {
        Xid xid = new Xid(3, 42, 7).withManager(10);
        assertThat(xid.gtrid()).isEqualTo("sg.3.42.7.10");
        assertThat(xid.manager()).isEqualTo(10);
        assertThat(xid.sql(20)).isEqualTo("'sg.3.42.7.10','20',1397174851");
        assertThat(Xid.parse("sg.3.42.7.10")).isEqualTo(xid);
    }

    @Test
    void aTransactionHasNoBranchIdBeforeItsManagerIsChosen() {
        Xid xid = new Xid(3, 42, 7);
        assertThat(xid.hasManager()).isFalse();
        assertThat(xid.gtrid()).isEqualTo("sg.3.42.7.?");
        assertThatThrownBy(() -> xid.sql(20)).isInstanceOf(IllegalStateException.class);
        assertThat(xid.withManager(20).hasManager()).isTrue();
    }

    @Test
    void recognisesItsOwnBranchesInXaRecoverRows() {
        // formatID, gtrid_length, bqual_length, data: as MariaDB 10.11 prints them
        Xid xid = new Xid(3, 42, 7, 10);
        assertThat(Xid.branchOf(Xid.FORMAT_ID, 12, 2, "sg.3.42.7.1020")).isEqualTo(new Xid.Branch(xid, 20));
        assertThat(Xid.branchOf(Xid.FORMAT_ID, 12, 2, "sg.3.42.7.1020").sql())
                .isEqualTo("'sg.3.42.7.10','20',1397174851");
    }

    @Test
    void leavesEveryOtherXaTransactionAlone() {
        assertThat(Xid.branchOf(1, 12, 2, "sg.3.42.7.1020"))
                .as("another format id")
                .isNull();
        assertThat(Xid.branchOf(Xid.FORMAT_ID, 2, 0, "x1"))
                .as("the application's own xid")
                .isNull();
        assertThat(Xid.branchOf(Xid.FORMAT_ID, 12, 2, "sg.3.42.7.10ab"))
                .as("qualifier not a hostgroup")
                .isNull();
        assertThat(Xid.branchOf(Xid.FORMAT_ID, 12, 3, "sg.3.42.7.1020"))
                .as("lengths disagree")
                .isNull();
        assertThat(Xid.branchOf(Xid.FORMAT_ID, 9, 2, "sg.3.42.720"))
                .as("the id of a release before the metadata manager (no manager)")
                .isNull();
        assertThat(Xid.branchOf(Xid.FORMAT_ID, 12, 2, null)).isNull();
        assertThat(Xid.parse("sg.3.42.7")).isNull();
        assertThat(Xid.parse("sg.3.42.7.1.2")).isNull();
        assertThat(Xid.parse("SG.3.42.7.1")).isNull();
        assertThat(Xid.parse("sg.3.42.7.99999999999"))
                .as("manager beyond a hostgroup id")
                .isNull();
    }

    @Test
    void idsOfDifferentEpochsSequencesOrManagersDiffer() {
        assertThat(new Xid(1, 5, 1, 10).gtrid()).isNotEqualTo(new Xid(1, 6, 1, 10).gtrid());
        assertThat(new Xid(1, 5, 1, 10).gtrid()).isNotEqualTo(new Xid(1, 5, 2, 10).gtrid());
        assertThat(new Xid(1, 5, 1, 10).gtrid()).isNotEqualTo(new Xid(1, 5, 1, 20).gtrid());
        // the longest id still fits XA's 64-byte global part
        long big = Long.MAX_VALUE / 1000;
        assertThat(new Xid(big, big, big, Integer.MAX_VALUE).gtrid()).hasSizeLessThanOrEqualTo(64);
        assertThatThrownBy(() -> new Xid(-1, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Xid(0, 0, 0, -2)).isInstanceOf(IllegalArgumentException.class);
    }
}
