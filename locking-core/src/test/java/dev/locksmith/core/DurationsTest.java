package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

  @ParameterizedTest
  @CsvSource({
    "500ms, 500",
    "10s, 10000",
    "5m, 300000",
    "1h, 3600000",
    "1d, 86400000",
    "PT10S, 10000",
    "pt1.5s, 1500",
    "' 7s ', 7000",
    "0s, 0"
  })
  void parsesShortAndIsoForms(String text, long millis) {
    assertThat(Durations.parse(text)).isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "'' | 500ms, 10s, 5m",
        "10 | 500ms, 10s, 5m",
        "10x | 500ms, 10s, 5m",
        "s | 500ms, 10s, 5m",
        "1.5s | 500ms, 10s, 5m",
        "ten seconds | 500ms, 10s, 5m",
        "PTXS | 500ms, 10s, 5m",
        "--5s | 500ms, 10s, 5m",
        // Was taken, then shown as 0s: "--connect-timeout 0s", "--until-interval" a busy loop.
        "PT0.0005S | whole milliseconds",
        "pt0.0000001s | whole milliseconds",
        "PT1.0005S | whole milliseconds"
      })
  void rejectsOtherTextNamingItAndWhatIsAccepted(String text, String accepted) {
    assertThatThrownBy(() -> Durations.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + text + "'")
        .hasMessageContaining(accepted);
  }

  @ParameterizedTest
  @ValueSource(strings = {"-PT5S", "PT-5S", "-5s", "-1ms"})
  void rejectsNegativeDurationsSayingSo(String text) {
    assertThatThrownBy(() -> Durations.parse(text)).hasMessageContaining("negative");
  }

  @ParameterizedTest
  @CsvSource({"1500, 1500ms", "30000, 30s", "300000, 5m", "7200000, 2h", "86400000, 1d"})
  void formatsTheShortWay(long millis, String text) {
    assertThat(Durations.format(Duration.ofMillis(millis))).isEqualTo(text);
    assertThat(Durations.parse(text)).isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "200000d",
        "9223372036854775807ms",
        "9999999999999999d",
        "99999999999999999999d",
        "P1000000000D",
        "366d"
      })
  void rejectsDurationsOverAYearSayingSoNotOverflowing(String text) {
    assertThatThrownBy(() -> Durations.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("'" + text + "' is longer than the longest duration Locksmith accepts, 365d");
  }

  @ParameterizedTest
  @CsvSource({"500000, PT0.0005S", "1000500000, 1s", "205175290, 205ms"})
  void formatsADurationUnderAMillisecondInIsoAndOthersInWholeMilliseconds(long nanos, String text) {
    assertThat(Durations.format(Duration.ofNanos(nanos))).isEqualTo(text);
  }

  @org.junit.jupiter.api.Test
  void acceptsAYearExactly() {
    assertThat(Durations.parse("365d")).isEqualTo(Durations.MAX);
  }

  @org.junit.jupiter.api.Test
  void checksGivenDurationsAgainstTheSameBounds() {
    assertThatThrownBy(() -> LockOptions.named("x").withTtl(Duration.ofDays(200_000)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ttl PT4800000H is longer than the longest Locksmith accepts, 365d");
    assertThatThrownBy(
            () -> dev.locksmith.core.spi.LockRequest.of("x", Duration.ofSeconds(Long.MAX_VALUE)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("longer than the longest Locksmith accepts");
  }
}
