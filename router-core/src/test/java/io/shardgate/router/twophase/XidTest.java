package io.shardgate.router.twophase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class XidTest {

    @Test
    void branchIdNamesTheTransactionTheHostgroupAndShardgatesFormat() {
        Xid xid = new Xid(3, 42, 7);
        assertThat(xid.gtrid()).isEqualTo("sg.3.42.7");
        assertThat(xid.sql(20)).isEqualTo("'sg.3.42.7','20',1397174851");
        assertThat(Xid.parse("sg.3.42.7")).isEqualTo(xid);
    }

    @Test
    void recognisesItsOwnBranchesInXaRecoverRows() {
        // formatID, gtrid_length, bqual_length, data: as MariaDB 10.11 prints them
        assertThat(Xid.branchOf(Xid.FORMAT_ID, 9, 2, "sg.3.42.720")).isEqualTo(new Xid.Branch(new Xid(3, 42, 7), 20));
        assertThat(Xid.branchOf(Xid.FORMAT_ID, 9, 2, "sg.3.42.720").sql()).isEqualTo("'sg.3.42.7','20',1397174851");
    }

    @Test
    void leavesEveryOtherXaTransactionAlone() {
        assertThat(Xid.branchOf(1, 9, 2, "sg.3.42.720")).as("another format id").isNull();
        assertThat(Xid.branchOf(Xid.FORMAT_ID, 2, 0, "x1"))
                .as("the application's own xid")
                .isNull();
        assertThat(Xid.branchOf(Xid.FORMAT_ID, 9, 2, "sg.3.42.7ab"))
                .as("qualifier not a hostgroup")
                .isNull();
        assertThat(Xid.branchOf(Xid.FORMAT_ID, 9, 3, "sg.3.42.720"))
                .as("lengths disagree")
                .isNull();
        assertThat(Xid.branchOf(Xid.FORMAT_ID, 9, 2, null)).isNull();
        assertThat(Xid.parse("sg.3.42")).isNull();
        assertThat(Xid.parse("sg.3.42.7.1")).isNull();
        assertThat(Xid.parse("SG.3.42.7")).isNull();
    }

    @Test
    void idsOfDifferentEpochsOrSequencesDiffer() {
        assertThat(new Xid(1, 5, 1).gtrid()).isNotEqualTo(new Xid(1, 6, 1).gtrid());
        assertThat(new Xid(1, 5, 1).gtrid()).isNotEqualTo(new Xid(1, 5, 2).gtrid());
        // the longest id still fits XA's 64-byte global part
        assertThat(new Xid(Long.MAX_VALUE / 1000, Long.MAX_VALUE / 1000, Long.MAX_VALUE / 1000).gtrid())
                .hasSizeLessThanOrEqualTo(64);
        assertThatThrownBy(() -> new Xid(-1, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
