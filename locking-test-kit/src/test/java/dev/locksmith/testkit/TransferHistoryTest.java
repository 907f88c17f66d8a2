package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TransferHistoryTest {

  private static TransferRecord transfer(
      String from, String to, long amount, long fromToken, long toToken, long start, long end) {
    return new TransferRecord(0, 0, 0, 1, from, to, amount, fromToken, toToken, start, end);
  }

  /** Checks {@code transfers} against the final {@code balances}, each account opened with 1000. */
  private static TransferHistory check(Map<String, Long> balances, TransferRecord... transfers) {
    return TransferHistory.check(List.of(transfers), balances, 1_000);
  }

  private static Map<String, Long> balances(long a, long b, long c) {
    Map<String, Long> balances = new LinkedHashMap<>();
    balances.put("a", a);
    balances.put("b", b);
    balances.put("c", c);
    return balances;
  }

  @Test
  void sequentialTransfersWithRisingTokensPass() {
    TransferHistory history =
        check(
            balances(990, 1005, 1005),
            transfer("b", "c", 5, 3, 1, 300, 400),
            transfer("a", "b", 10, 1, 2, 100, 200));
    assertThat(history.violations()).isEmpty();
    assertThat(history.transfers())
        .extracting(TransferRecord::startNanos)
        .containsExactly(100L, 300L);
    assertThat(history.accounts().get("b").sections())
        .extracting(CriticalSection::fencingToken)
        .containsExactly(2L, 3L);
  }

  @Test
  void transfersOnDisjointAccountsMayRunAtOnce() {
    Map<String, Long> balances = balances(990, 1010, 1000);
    balances.put("d", 995L);
    balances.put("e", 1005L);
    TransferHistory history =
        check(
            balances,
            transfer("a", "b", 10, 1, 1, 100, 300),
            transfer("d", "e", 5, 1, 1, 150, 250));
    assertThat(history.violations()).isEmpty();
    assertThat(history.startedDuringAnother()).isEqualTo(1);
  }

  @Test
  void interleavingIsCounted() {
    TransferHistory history =
        check(
            balances(996, 1004, 1000),
            new TransferRecord(0, 0, 0, 11, "a", "b", 1, 1, 1, 100, 200),
            new TransferRecord(1, 0, 0, 12, "a", "b", 1, 2, 2, 300, 400),
            new TransferRecord(1, 1, 0, 12, "a", "b", 1, 3, 3, 500, 600),
            new TransferRecord(0, 1, 0, 11, "a", "b", 1, 4, 4, 700, 800));
    assertThat(history.violations()).isEmpty();
    assertThat(history.processes()).isEqualTo(2);
    assertThat(history.processChanges()).isEqualTo(2);
    assertThat(history.startedDuringAnother()).isZero();
  }

  /**
   * Two transfers that break the rule on account b, with the balances they leave: overlapping in
   * time, and the second with a lower fencing token on b than the first.
   */
  static Stream<Arguments> twoTransfersBreakingARuleOnB() {
    return Stream.of(
        Arguments.of(
            "account 'b': overlap",
            balances(990, 1005, 1005),
            transfer("a", "b", 10, 1, 1, 100, 201),
            transfer("b", "c", 5, 2, 1, 200, 300)),
        Arguments.of(
            "account 'b': fencing token did not increase",
            balances(990, 1015, 995),
            transfer("a", "b", 10, 1, 7, 100, 200),
            transfer("c", "b", 5, 1, 6, 300, 400)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("twoTransfersBreakingARuleOnB")
  void aBrokenRuleOnASharedAccountIsTheOnlyViolationFound(
      String violation, Map<String, Long> balances, TransferRecord first, TransferRecord second) {
    TransferHistory history = check(balances, first, second);
    assertThat(history.violations()).singleElement().asString().startsWith(violation);
  }

  @Test
  void aLostUpdateThatKeepsTheTotalIsFound() {
    // The second transfer read b before the first wrote it: b lost 10, c kept its 5.
    TransferHistory history =
        check(
            balances(990, 995, 1015),
            transfer("a", "b", 10, 1, 1, 100, 200),
            transfer("b", "c", 5, 2, 1, 300, 400));
    assertThat(history.violations())
        .containsExactly(
            "lost update on account 'b': balance is 995, the recorded transfers make it 1005",
            "lost update on account 'c': balance is 1015, the recorded transfers make it 1005");
  }

  @Test
  void aTotalNotConservedIsFound() {
    TransferHistory history =
        check(balances(990, 1000, 1000), transfer("a", "b", 10, 1, 1, 100, 200));
    assertThat(history.violations())
        .contains("total balance is 2990, expected 3000 ({a=990, b=1000, c=1000})")
        .contains(
            "lost update on account 'b': balance is 1000, the recorded transfers make it 1010");
  }

  @Test
  void anUnknownAccountIsFound() {
    TransferHistory history =
        check(balances(990, 1000, 1000), transfer("a", "z", 10, 1, 1, 100, 200));
    assertThat(history.violations()).contains("transfer 0/0#0 names an unknown account 'z'");
  }

  @Test
  void recordsRoundTripThroughLines() {
    TransferRecord record = new TransferRecord(2, 1, 14, 4242, "a", "c", 37, 9, 11, 1_000, 2_000);
    assertThat(TransferRecord.parse(record.toLine())).isEqualTo(record);
    assertThat(record.section("c")).isEqualTo(new CriticalSection(4242, 11, 1_000, 2_000));
    assertThatThrownBy(() -> TransferRecord.parse("failure 0 1 2 boom"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a transfer record");
    assertThatThrownBy(() -> record.section("b")).hasMessageContaining("did not lock account 'b'");
  }
}
