package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code locksmith run} with several {@code --key}, against a real TCP lock server. */
class RunSeveralKeysTest {
  /** The accounts alice, bob and carol locked as one set, failing at once when one is busy. */
  private static final List<String> THE_SET_OR_FAIL =
      List.of("--name", "acct", "--key", "alice", "--key", "bob", "--key", "carol", "--fail");

  @TempDir Path dir;
  @RegisterExtension final TcpLockServerFixture lockServer = new TcpLockServerFixture();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  /** {@code locksmith run --url <the server> options -- sh -c script}. */
  private int run(List<String> options, String script) {
    CommandLine line = Main.commandLine();
    line.setErr(new PrintWriter(err, true));
    return line.execute(
        Stream.of(
                Stream.of("run", "--url", lockServer.url()),
                options.stream(),
                Stream.of("--", "sh", "-c", script))
            .flatMap(s -> s)
            .toArray(String[]::new));
  }

  private String errText() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void exportsEveryLocksFencingTokenAndKeepsTheSingleKeyVariables() throws Exception {
    Path out = dir.resolve("out");
    int exit =
        run(
            List.of("--name", "account", "--key", "bob", "--key", "alice"),
            "printf '%s|%s|%s\\n%s\\n' \"$LOCKSMITH_LOCK\" \"$LOCKSMITH_FENCING_TOKEN\""
                + " \"$LOCKSMITH_OWNER\" \"$LOCKSMITH_LOCKS\" > "
                + out);
    assertThat(exit).as(errText()).isZero();
    List<String> lines = Files.readAllLines(out);
    assertThat(lines).hasSize(3);
    String[] first = lines.get(0).split("\\|");
    assertThat(first[0]).isEqualTo("account:alice"); // the first in lock order
    assertThat(first[2]).isNotBlank();
    assertThat(lines.get(1)).isEqualTo("account:alice=" + first[1]);
    assertThat(lines.get(2)).startsWith("account:bob=");
    assertThat(Long.parseLong(lines.get(2).substring("account:bob=".length()))).isPositive();
    // Both were released.
    lockServer.assertFree("account:alice");
    lockServer.assertFree("account:bob");
  }

  @Test
  void oneKeyKeepsItsLockIdAndGetsOneLine() throws Exception {
    Path out = dir.resolve("out");
    int exit = run(List.of("--key", "backup"), "printf '%s' \"$LOCKSMITH_LOCKS\" > " + out);
    assertThat(exit).as(errText()).isZero();
    assertThat(Files.readString(out)).matches("backup=[1-9][0-9]*");
  }

  @Test
  void overlappingSetsInOppositeOrderNeitherDeadlockNorOverlapOnTheSharedKey() throws Exception {
    // One run takes alice then bob as listed, the other bob, carol then alice: both share bob and
    // alice. Each, while it holds, marks bob held with an atomic mkdir, which fails if the other
    // holds it too.
    Path shared = dir.resolve("bob.held");
    Path overlaps = dir.resolve("overlaps");
    Files.createFile(overlaps);
    String script =
        "mkdir "
            + shared
            + " || echo overlap >> "
            + overlaps
            + "; sleep 0.05; rmdir "
            + shared
            + " 2>/dev/null; exit 0";
    int rounds = 8;
    // Two threads of the test's own, so that the two sequences really race: the common pool may
    // have one thread on a 2-core machine.
    ExecutorService racers = Executors.newFixedThreadPool(2);
    CompletableFuture<List<Integer>> first =
        runRepeatedly(
            List.of("--name", "acct", "--key", "alice", "--key", "bob", "--wait", "20s"),
            script,
            rounds,
            racers);
    CompletableFuture<List<Integer>> second =
        runRepeatedly(
            List.of(
                "--name", "acct", "--key", "bob", "--key", "carol", "--key", "alice", "--wait",
                "20s"),
            script,
            rounds,
            racers);
    try {
      assertThat(first.get(60, TimeUnit.SECONDS)).as(errText()).containsOnly(0);
      assertThat(second.get(60, TimeUnit.SECONDS)).as(errText()).containsOnly(0);
    } finally {
      racers.shutdownNow();
    }
    assertThat(Files.readString(overlaps)).as("runs that held bob at once").isEmpty();
    assertThat(Files.exists(shared)).isFalse();
  }

  @Test
  void aBusyKeyWithFailRunsNothingAndLeavesNoKeyHeld() throws Exception {
    LeaseGrant held = lockServer.holdElsewhere("acct:bob");
    assertExitsWithoutRunning(ExitCodes.BUSY, THE_SET_OR_FAIL);
    assertThat(errText()).contains("'acct:bob'");
    // alice, taken before bob in lock order, was released; carol was never taken.
    lockServer.assertFree("acct:alice");
    lockServer.assertFree("acct:carol");
    lockServer.other().release(held);
  }

  @Test
  void aBusySetWithFailNamesTheKeyThatIsHeldAndItsHolderNotTheSetsFirst() {
    // bob, not alice (the set's first in lock order), is held elsewhere: the whole set is asked
    // for at once and answered busy, and the message must name bob and who holds it.
    LeaseGrant held =
        lockServer
            .other()
            .tryAcquire(
                new LockRequest("acct:bob", "other-token", Duration.ofSeconds(30), "host-b pid 42"))
            .orElseThrow();
    assertExitsWithoutRunning(ExitCodes.BUSY, THE_SET_OR_FAIL);
    assertThat(errText())
        .contains(
            "lock 'acct:alice', 'acct:bob', 'acct:carol' is busy, 'acct:bob' held by host-b pid 42"
                + " (fencing token "
                + held.fencingToken()
                + ", ")
        .contains("; wait for it with --wait, or skip quietly with --skip")
        .doesNotContain("'acct:alice' held by")
        .doesNotContain(Holders.UNKNOWN);
    lockServer.other().release(held);
  }

  @Test
  void severalKeysWithoutANameAreAUsageError() {
    assertExitsWithoutRunning(ExitCodes.USAGE, List.of("--key", "alice", "--key", "bob"));
    assertThat(errText()).contains("several --key need --name");
  }

  /** Runs {@code script} with {@code options} {@code rounds} times in a row on {@code thread}. */
  private CompletableFuture<List<Integer>> runRepeatedly(
      List<String> options, String script, int rounds, ExecutorService thread) {
    return CompletableFuture.supplyAsync(
        () -> Stream.generate(() -> run(options, script)).limit(rounds).toList(), thread);
  }

  /** Runs a command that would touch a file, with {@code options}: it exits so and runs nothing. */
  private void assertExitsWithoutRunning(int exit, List<String> options) {
    Path ran = dir.resolve("ran");
    assertThat(run(options, "touch " + ran)).isEqualTo(exit);
    assertThat(ran).doesNotExist();
  }
}
