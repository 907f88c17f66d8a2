package dev.locksmith.benchmarks.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class PercentilesTest {

  @Test
  void nearestRankOverOneToHundred() {
    long[] samples = LongStream.rangeClosed(1, 100).map(i -> 101 - i).toArray();

    Percentiles p = Percentiles.of(samples);

    assertThat(p).isEqualTo(new Percentiles(100, 50, 90, 99, 100));
    assertThat(samples[0]).as("the samples are not sorted in place").isEqualTo(100);
  }

  @Test
  void oneSampleIsEveryPercentile() {
    assertThat(Percentiles.of(new long[] {7})).isEqualTo(new Percentiles(1, 7, 7, 7, 7));
  }

  @Test
  void noSamplesAreZeros() {
    assertThat(Percentiles.of(new long[0])).isEqualTo(new Percentiles(0, 0, 0, 0, 0));
  }

  @Test
  void medianOfOddAndEvenRounds() {
    assertThat(LoadBenchmarks.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2.0);
    assertThat(LoadBenchmarks.median(List.of(4.0, 1.0, 2.0, 3.0))).isEqualTo(2.5);
  }
}
