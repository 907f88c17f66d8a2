package dev.locksmith.file;

import static dev.locksmith.file.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.spi.LeaseGrant;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link FileLockMaintenance#prune}: the counter files of idle locks go, held and recently used
 * ones stay, and an acquisition racing a prune never sees a token repeat or go back. Prunes here
 * run with a clock two hours ahead ({@code olderThan} one hour), as a prune run two hours after the
 * acquisitions would.
 */
class FileLockMaintenanceTest {
  private static final Logger LOG = LoggerFactory.getLogger(FileLockMaintenanceTest.class);
  private static final Duration LONG = Duration.ofSeconds(30);
  private static final Duration HOUR = Duration.ofHours(1);

  @TempDir Path dir;
  @RegisterExtension final OpenedProviders providers = new OpenedProviders();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  private FileLockProvider provider() {
    return providers.open(dir, "");
  }

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  private FileLockMaintenance.PruneReport pruneLater() throws Exception {
    return prune(TestHooks.NONE);
  }

  private FileLockMaintenance.PruneReport prune(TestHooks hooks) throws Exception {
    return FileLockMaintenance.prune(
        dir, HOUR, Clock.offset(Clock.systemUTC(), Duration.ofHours(2)), true, hooks);
  }

  private static long grantAndRelease(FileLockProvider provider, String id) {
    LeaseGrant lease = provider.tryAcquire(request(id, LONG)).orElseThrow();
    assertThat(provider.release(lease)).isTrue();
    return lease.fencingToken();
  }

  private List<String> names() throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void theStateOfFiveThousandIdsUsedOnceIsReclaimedAndTheirTokensKeepRising() throws Exception {
    PruneMeasurement.Figures figures = PruneMeasurement.run(dir, 5_000);
    LOG.info("Prune measurement:\n{}", figures);

    assertThat(figures.filesBefore()).as("one counter file per id").isEqualTo(5_000);
    assertThat(figures.report().countersDeleted()).isEqualTo(5_000);
    assertThat(figures.filesAfter()).isZero();
    assertThat(figures.bytesAfter()).isZero();

    FileLockProvider provider = provider();
    for (int i = 0; i < 5_000; i += 499) {
      String id = "account:" + i;
      long before = FencingCounter.clockFloor();
      assertThat(grantAndRelease(provider, id)).isGreaterThanOrEqualTo(before);
    }
  }

  @Test
  void countersOfVeryLongLockIdsArePrunedToo() throws Exception {
    // Prune read the first 16 KiB of a counter for its lock id: a longer id's line had no end
    // there, so its counter (and a leftover of it) was kept for good.
    FileLockProvider provider = provider();
    String longId = "batch:" + "y".repeat(20_000);
    grantAndRelease(provider, "short");
    grantAndRelease(provider, longId);

    FileLockMaintenance.PruneReport report = pruneLater();
    assertThat(report.countersDeleted()).isEqualTo(2);
    assertThat(report.countersKept()).isZero();
    assertThat(names()).isEmpty();
  }

  @Test
  void anAgeBelowTheMinimumIsRefused() {
    assertThatThrownBy(() -> FileLockMaintenance.prune(dir, Duration.ofSeconds(59)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least PT1M");
  }

  @Test
  void heldRecentAheadOfTheClockAndUnreadableCountersAreKept() throws Exception {
    FileLockProvider provider = provider();
    LeaseGrant held = provider.tryAcquire(request("held", LONG)).orElseThrow();
    grantAndRelease(provider, "idle");
    LockFileNames.LockFiles ahead = LockFileNames.of(dir, "ahead");
    long far = FencingCounter.clockFloor() + Duration.ofDays(3).toNanos() / 1_000;
    Files.write(ahead.fence(), CounterFile.newFile("ahead", far, CounterFile.newStamp()));
    LockFileNames.LockFiles unreadable = LockFileNames.of(dir, "unreadable");
    Files.writeString(unreadable.fence(), "locksmith-fence 2\nlock-id=unreadable\ngarbage\n");
    Path oldTomb = dir.resolve(LockFileNames.of(dir, "idle").base() + ".x.tomb");
    Files.writeString(oldTomb, "left by a crash");
    Files.setLastModifiedTime(oldTomb, FileTime.fromMillis(System.currentTimeMillis() - 60_000));

    FileLockMaintenance.PruneReport now = FileLockMaintenance.prune(dir, HOUR);
    assertThat(now.countersDeleted()).as("nothing is an hour old yet").isZero();
    assertThat(now.countersKept()).isEqualTo(4);
    assertThat(now.leftoversDeleted()).isZero();

    FileLockMaintenance.PruneReport later = pruneLater();
    assertThat(later.countersDeleted()).as("only the idle one").isEqualTo(1);
    assertThat(later.countersKept()).isEqualTo(3);
    assertThat(later.leftoversDeleted()).isEqualTo(1);
    assertThat(LockFileNames.of(dir, "idle").fence()).doesNotExist();
    assertThat(LockFileNames.of(dir, "held").fence()).exists();
    assertThat(ahead.fence()).exists();
    assertThat(Files.readString(unreadable.fence())).contains("garbage");
    assertThat(provider.release(held)).isTrue();
  }

  @Test
  void filesMovedAwayJustNowAreNotLeftoversHoweverLongAgoTheyWereWritten() throws Exception {
    // A take-over moves an expired lock file to a tomb, and a replacement moves an idle counter
    // away, before reading them: a rename keeps the time the file was last written.
    LockFileNames.LockFiles files = LockFileNames.of(dir, "job");
    FileTime twoHoursAgo = FileTime.fromMillis(System.currentTimeMillis() - 2 * HOUR.toMillis());
    Path expired = dir.resolve("expired.lock");
    Files.writeString(expired, "a lock file expired long ago");
    Files.setLastModifiedTime(expired, twoHoursAgo);
    Path tomb = files.tomb("taking-over");
    Files.move(expired, tomb);
    long idleToken = FencingCounter.clockFloor() - 2 * HOUR.toNanos() / 1_000;
    Path idle = dir.resolve("idle.fence");
    Files.write(idle, CounterFile.newFile("job", idleToken, CounterFile.newStamp()));
    Files.setLastModifiedTime(idle, twoHoursAgo);
    Path taken = files.taken("replacing");
    Files.move(idle, taken);

    FileLockMaintenance.PruneReport report = FileLockMaintenance.prune(dir, HOUR);

    assertThat(report.leftoversDeleted()).isZero();
    assertThat(tomb).as("the take-over reads it next").exists();
    assertThat(taken).as("the replacement reads it next").exists();
    assertThat(pruneLater().leftoversDeleted())
        .as("left an hour after the move, they are leftovers")
        .isEqualTo(2);
  }

  @Test
  void counterFilesTakenAwayThatCannotBeReadAreLeftForAnOperator() throws Exception {
    LockFileNames.LockFiles files = LockFileNames.of(dir, "job");
    Path garbledSlot = files.taken("garbled-slot");
    Files.writeString(garbledSlot, "locksmith-fence 2\nlock-id=job\ngarbage\n");
    Path garbledHead = files.taken("garbled-head");
    Files.writeString(garbledHead, "garbage from byte 0\n");
    FileTime old = FileTime.fromMillis(System.currentTimeMillis() - 60_000);
    Files.setLastModifiedTime(garbledSlot, old);
    Files.setLastModifiedTime(garbledHead, old);

    FileLockMaintenance.PruneReport report = pruneLater();

    assertThat(report.leftoversDeleted()).isZero();
    assertThat(garbledSlot).exists();
    assertThat(garbledHead).exists();
  }

  @Test
  void anAcquisitionWhilePruneHasTheCounterAwayMakesPrunePutItBack() throws Exception {
    FileLockProvider provider = provider();
    long first = grantAndRelease(provider, "raced");
    Pause pause = new Pause();
    Future<FileLockMaintenance.PruneReport> pruning =
        pool.submit(
            () ->
                prune(
                    new TestHooks() {
                      @Override
                      public void afterPruneTake(String lockId) {
                        pause.here();
                      }
                    }));
    pause.awaitReached();
    LockFileNames.LockFiles files = LockFileNames.of(dir, "raced");
    assertThat(files.fence()).doesNotExist();

    // The acquirer finds no counter, takes its token from the clock and publishes a new one.
    LeaseGrant held = provider.tryAcquire(request("raced", LONG)).orElseThrow();
    pause.release();
    FileLockMaintenance.PruneReport report = pruning.get(20, TimeUnit.SECONDS);

    assertThat(report.countersDeleted()).isZero();
    assertThat(report.countersKept()).isEqualTo(1);
    assertThat(held.fencingToken()).isGreaterThan(first);
    assertThat(CounterFile.valueAt(files.fence(), files, "raced")).isEqualTo(held.fencingToken());
    assertThat(provider.release(held)).isTrue();
    assertThat(grantAndRelease(provider, "raced")).isGreaterThan(held.fencingToken());
    assertThat(names()).containsExactly(files.base() + ".fence");
  }

  @Test
  void anAcquisitionThatOpenedTheCounterBeforePruneDeletedItNeverRepeatsAToken() throws Exception {
    FileLockProvider provider = provider();
    long first = grantAndRelease(provider, "opened");
    Pause pause = new Pause();
    provider.hooks(
        new TestHooks() {
          @Override
          public void beforeLockCreate(String lockId) {
            pause.here();
          }
        });
    Future<Optional<LeaseGrant>> acquiring =
        pool.submit(() -> provider.tryAcquire(request("opened", LONG)));
    pause.awaitReached();
    // The acquirer holds the counter file open but has no lock file yet: prune deletes it.
    assertThat(pruneLater().countersDeleted()).isEqualTo(1);
    pause.release();
    LeaseGrant held = acquiring.get(20, TimeUnit.SECONDS).orElseThrow();

    // Its update of the deleted file cannot be confirmed, so it publishes a new counter.
    LockFileNames.LockFiles files = LockFileNames.of(dir, "opened");
    assertThat(held.fencingToken()).isGreaterThan(first);
    assertThat(CounterFile.valueAt(files.fence(), files, "opened")).isEqualTo(held.fencingToken());
    assertThat(provider.release(held)).isTrue();
    assertThat(grantAndRelease(provider, "opened")).isGreaterThan(held.fencingToken());
  }
}
