package dev.locksmith.samples.aspectj;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.samples.aspectj.Ledger.Entry;
import dev.locksmith.testkit.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the woven batch in two JVMs at once against one lock directory and ledger, and checks the
 * ledger: every account is settled exactly once per round, and no two settlements of an account
 * ever overlap.
 */
class TwoJvmSmokeTest {
  private static final int ROUNDS = 3;
  private static final List<String> ACCOUNTS = List.of("acc-1", "acc-2", "acc-3", "acc-4");
  private static final List<String> ACCOUNTS_REVERSED = List.of("acc-4", "acc-3", "acc-2", "acc-1");
  private static final Pattern DONE =
      Pattern.compile("worker (\\S+) done: settled=(\\d+) found-settled=(\\d+)");

  @Test
  void twoJvmsSettleEachAccountOncePerRoundAndNeverAtTheSameTime(@TempDir Path dir)
      throws Exception {
    // The second worker walks the accounts in the opposite order, so both settle some of them.
    List<ChildJvm> workers =
        List.of(
            start(dir, "A", String.join(",", ACCOUNTS)),
            start(dir, "B", String.join(",", ACCOUNTS_REVERSED)));
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> log(dir, "A").contains("A ready") && log(dir, "B").contains("B ready"));
      for (ChildJvm worker : workers) {
        worker.send("go");
      }
      for (ChildJvm worker : workers) {
        assertThat(worker.process().waitFor(60, TimeUnit.SECONDS)).as("worker finished").isTrue();
      }
      String logs = log(dir, "A") + log(dir, "B");
      assertThat(workers).allSatisfy(w -> assertThat(w.process().exitValue()).as(logs).isZero());

      int settled = 0;
      int foundSettled = 0;
      Matcher done = DONE.matcher(logs);
      while (done.find()) {
        settled += Integer.parseInt(done.group(2));
        foundSettled += Integer.parseInt(done.group(3));
      }
      // Each worker visits every account in every round: one of them settles it, the other
      // finds it settled.
      assertThat(settled).as(logs).isEqualTo(ROUNDS * ACCOUNTS.size());
      assertThat(foundSettled).as(logs).isEqualTo(ROUNDS * ACCOUNTS.size());

      Ledger ledger = new Ledger(dir.resolve("ledger"));
      for (String account : ACCOUNTS) {
        assertSettledOncePerRoundWithoutOverlap(account, ledger.entries(account));
      }
    } finally {
      for (ChildJvm worker : workers) {
        worker.close();
      }
    }
  }

  private static void assertSettledOncePerRoundWithoutOverlap(String account, List<Entry> entries) {
    assertThat(entries).as(account).hasSize(2 * ROUNDS);
    List<Integer> rounds = new ArrayList<>();
    long previousToken = Long.MIN_VALUE;
    for (int i = 0; i < entries.size(); i += 2) {
      Entry begin = entries.get(i);
      Entry end = entries.get(i + 1);
      // A begin is directly followed by the end of the same worker, round and lease: nothing
      // else was written to the account while it was being settled.
      assertThat(begin.kind()).as(account + " " + entries).isEqualTo(Entry.BEGIN);
      assertThat(end)
          .as(account + " " + entries)
          .isEqualTo(new Entry(Entry.END, begin.round(), begin.worker(), begin.token()));
      assertThat(begin.token()).as(account + " tokens increase").isGreaterThan(previousToken);
      previousToken = begin.token();
      rounds.add(begin.round());
    }
    assertThat(rounds).as(account + " rounds settled, in order").containsExactly(1, 2, 3);
  }

  private static ChildJvm start(Path dir, String worker, String accounts) {
    return ChildJvm.builder(SettlementJob.class)
        .jvmOptions("-Xmx64m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")
        .args(
            dir.toString(),
            "--rounds=" + ROUNDS,
            "--accounts=" + accounts,
            "--worker=" + worker,
            "--work-millis=40",
            "--await-go")
        .output(dir.resolve(worker + ".log"))
        .pipeStdin()
        .start();
  }

  private static String log(Path dir, String worker) throws IOException {
    Path log = dir.resolve(worker + ".log");
    return Files.exists(log) ? Files.readString(log) : "";
  }
}
