package dev.locksmith.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.fencing.FencedFile;
import dev.locksmith.testkit.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Scenario 1: 4 JVMs × 4 threads do read-modify-write on a fenced ledger through the lock. The
 * recorded history must show no overlapping sections, no lost update, and fencing tokens that
 * increase with acquisition order.
 */
class ReadModifyWriteChaosTest {
  static final String TITLE = "4 JVMs x 4 threads, read-modify-write through the lock";
  private static final int JVMS = 4;
  private static final int THREADS = 4;
  private static final int ITERATIONS = 15;

  @ParameterizedTest(name = "{0}")
  @EnumSource(Backend.Kind.class)
  void sixteenContendersAcrossFourJvmsLoseNoUpdate(Backend.Kind kind) throws Exception {
    Path dir = WorkDirs.fresh("1-rmw-" + kind.name().toLowerCase());
    Path ledgerFile = dir.resolve("ledger");
    FencedFile ledger = new FencedFile(ledgerFile);
    try (Backend backend = kind.start(dir, false)) {
      long started = System.nanoTime();
      List<ChildJvm> workers = new ArrayList<>();
      List<Integer> exitCodes = new ArrayList<>();
      try {
        new LedgerWorker.Job(
                "ledger",
                THREADS,
                ITERATIONS,
                ledgerFile,
                Duration.ofSeconds(2),
                Duration.ofMinutes(2),
                false)
            .start(JVMS, backend.url(), dir, workers);
        for (ChildJvm worker : workers) {
          exitCodes.add(worker.awaitExit(Duration.ofMinutes(3)));
        }
      } finally {
        workers.forEach(ChildJvm::close);
      }
      long elapsed = System.nanoTime() - started;

      List<Section> sections = Section.readAll(dir);
      LedgerCheck check = LedgerCheck.of(sections, ledger);
      List<String> problems = WorkDirs.lines(dir, "errors-");
      List<String> violations = new ArrayList<>(check.violations());
      int expected = JVMS * THREADS * ITERATIONS;
      if (sections.size() != expected) {
        violations.add("recorded " + sections.size() + " sections, expected " + expected);
      }
      if (check.unconfirmed() > 0) {
        violations.add(check.unconfirmed() + " sections ended with their lease no longer valid");
      }
      for (int i = 0; i < exitCodes.size(); i++) {
        if (exitCodes.get(i) != 0) {
          violations.add(
              "worker " + i + " exited with " + exitCodes.get(i) + "; see its log in " + dir);
        }
      }
      problems.forEach(problem -> violations.add("worker reported: " + problem));

      Figures figures =
          new Figures()
              .put("JVMs x threads", JVMS + " x " + THREADS)
              .put("sections", sections.size())
              .put("contenders", check.history().processes())
              .put(
                  "overlaps",
                  check.history().violations().stream()
                      .filter(v -> v.startsWith("overlap"))
                      .count())
              .put(
                  "token order violations",
                  check.history().violations().stream()
                      .filter(v -> v.startsWith("fencing"))
                      .count())
              .put("ledger value", WorkerIo.ledgerValue(ledger.read().value()))
              .latencies("hand-off", check.handOffs())
              .millis("run", elapsed);
      ChaosReport.record(1, TITLE, kind, figures, violations);

      assertThat(violations).as("violations (logs in %s)", dir).isEmpty();
      assertThat(check.history().processes()).isEqualTo(JVMS * THREADS);
    }
  }
}
