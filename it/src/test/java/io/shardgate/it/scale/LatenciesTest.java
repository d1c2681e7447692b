package io.shardgate.it.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LatenciesTest {
    @Test
    void nearestRankPercentilesOfUnsortedSamples() {
        double[] samples = new double[100];
        for (int i = 0; i < 100; i++) {
            samples[i] = 100 - i; // 100 .. 1, unsorted on purpose
        }
        Latencies l = new Latencies(samples);
        assertThat(l.percentile(50)).isEqualTo(50);
        assertThat(l.percentile(99)).isEqualTo(99);
        assertThat(l.percentile(100)).isEqualTo(100);
        assertThat(l.max()).isEqualTo(100);
        assertThat(l.summary()).isEqualTo("50.0 / 99.0 / 100.0");
    }

    @Test
    void thirtySamplesP99IsTheMaximum() {
        double[] samples = new double[30];
        for (int i = 0; i < 30; i++) {
            samples[i] = i + 1;
        }
        Latencies l = new Latencies(samples);
        assertThat(l.percentile(50)).isEqualTo(15);
        assertThat(l.percentile(99)).isEqualTo(30); // ceil(29.7) = 30th of 30
    }

    @Test
    void noSamplesIsAnError() {
        assertThatThrownBy(() -> new Latencies(new double[0])).isInstanceOf(IllegalArgumentException.class);
    }
}
