package dev.locksmith.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockTimeoutException;
import dev.locksmith.core.fencing.FencedFile;
import dev.locksmith.testkit.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Scenario 2: a holder frozen with SIGSTOP for twice its TTL. Meanwhile another JVM (the test's)
 * takes the lock with a higher fencing token and writes the ledger; after SIGCONT the frozen
 * holder's lease is reported lost and its late write is refused by the fenced ledger.
 */
class PausedHolderChaosTest {
  static final String TITLE = "Holder paused with SIGSTOP for 2 x TTL";
  private static final Duration TTL = Duration.ofSeconds(1);
  private static final Duration PAUSE = TTL.multipliedBy(2);

  @ParameterizedTest(name = "{0}")
  @EnumSource(Backend.Kind.class)
  void aFrozenHolderIsOvertakenReportedLostAndFencedOff(Backend.Kind kind) throws Exception {
    Path dir = WorkDirs.fresh("2-sigstop-" + kind.name().toLowerCase());
    Path ledgerFile = dir.resolve("ledger");
    Path marker = dir.resolve("read-done");
    Path resultFile = dir.resolve("result");
    FencedFile ledger = new FencedFile(ledgerFile);
    List<String> violations = new ArrayList<>();
    Figures figures = new Figures().millis("ttl", TTL).millis("pause", PAUSE);
    try (Backend backend = kind.start(dir, false);
        Client client = Client.connect(backend.url());
        ChildJvm holder =
            Workers.start(
                PausedHolder.class,
                dir.resolve("holder.log"),
                backend.url(),
                "paused",
                TTL.toString(),
                ledgerFile.toString(),
                marker.toString(),
                resultFile.toString())) {
      await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(marker) || !holder.isAlive());
      assertThat(holder.isAlive()).as("holder alive; log %s", holder.log()).isTrue();
      String[] read = Files.readString(marker).strip().split(" ");
      long pausedToken = Long.parseLong(read[0]);
      long pausedDeadline = Long.parseLong(read[1]);

      holder.pause();
      long stoppedAt = System.nanoTime();
      long newToken = 0;
      try (Lease lease =
          client
              .locksmith()
              .acquire(
                  LockOptions.named("paused")
                      .withTtl(Duration.ofSeconds(10))
                      .withWaitTimeout(PAUSE))) {
        long acquiredAt = System.nanoTime();
        newToken = lease.fencingToken();
        figures.millis("stop -> other JVM acquires", acquiredAt - stoppedAt);
        ledger.write(newToken, Long.toString(WorkerIo.ledgerValue(ledger.read().value()) + 1));
      } catch (LockTimeoutException e) {
        violations.add("no other JVM could take the lock while the holder was paused: " + e);
      }
      // The fault itself: the holder stays frozen for 2 x TTL in all.
      LockSupport.parkNanos(stoppedAt + PAUSE.toNanos() - System.nanoTime());
      long resumedAt = System.nanoTime(); // SIGCONT is delivered while kill -CONT runs
      holder.resume();
      holder.send("go");
      int exit = holder.awaitExit(Duration.ofSeconds(30));

      Map<String, String> result = readResult(resultFile);
      figures
          .put("paused holder's token", pausedToken)
          .put("new holder's token", newToken)
          .put("late write", result.getOrDefault("write", "none"))
          .put("lost reported", result.getOrDefault("lostReported", "false"));
      long lostAt = Long.parseLong(result.getOrDefault("lostAt", "0"));
      if (lostAt != 0) {
        figures
            .millis("lost-lease detection after lease expiry", lostAt - pausedDeadline)
            .millis("lost-lease detection after resume", lostAt - resumedAt);
      }
      if (exit != 0) {
        violations.add("the paused holder exited with " + exit + "; see " + holder.log());
      }
      if (newToken <= pausedToken) {
        violations.add("the new holder's token " + newToken + " is not above " + pausedToken);
      }
      if (!"refused".equals(result.get("write"))) {
        violations.add(
            "the paused holder's late write was " + result.getOrDefault("write", "not attempted"));
      }
      if (!"true".equals(result.get("lostReported"))) {
        violations.add("the paused holder's lease was not reported lost within 10 s of resuming");
      }
      if (ledger.read().token() != newToken || WorkerIo.ledgerValue(ledger.read().value()) != 1) {
        violations.add("the ledger does not hold the new holder's write: " + ledger.read());
      }
      ChaosReport.record(2, TITLE, kind, figures, violations);
      assertThat(violations).as("logs in %s", dir).isEmpty();
      assertThat(result.get("lostReason")).isNotBlank();
    }
  }

  private static Map<String, String> readResult(Path file) throws IOException {
    Map<String, String> result = new LinkedHashMap<>();
    if (Files.exists(file)) {
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        int eq = line.indexOf('=');
        if (eq > 0) {
          result.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
    }
    return result;
  }
}
