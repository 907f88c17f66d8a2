package dev.locksmith.file;

import static dev.locksmith.file.TestProviders.awaitGranted;
import static dev.locksmith.file.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process that pauses between reading the fencing counter and updating it (GC, {@code SIGSTOP}, a
 * slow mount) while others take its lock over and are granted tokens must never make a token repeat
 * or the counter go back when it resumes.
 */
class StaleWriterTest {
  private static final String ID = "ledger";
  private static final Duration LONG = Duration.ofSeconds(30);

  @TempDir Path dir;
  @RegisterExtension final OpenedProviders providers = new OpenedProviders();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  private FileLockProvider provider(String query) {
    return providers.open(dir, query);
  }

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  private static long grantAndRelease(FileLockProvider provider, List<Long> issued) {
    LeaseGrant grant = provider.tryAcquire(request(ID, LONG)).orElseThrow();
    issued.add(grant.fencingToken());
    assertThat(provider.release(grant)).isTrue();
    return grant.fencingToken();
  }

  private static LeaseGrant takeOver(FileLockProvider provider) {
    return awaitGranted(provider, ID, LONG, Duration.ofSeconds(20));
  }

  /** A {@code tryAcquire} running on its own thread, stopped at a hook point. */
  private record Stopped(Pause pause, Future<Optional<LeaseGrant>> result) {
    /** Lets it go on and returns what it got (waiting at most 20 s). */
    Optional<LeaseGrant> resume() throws Exception {
      pause.release();
      return result.get(20, TimeUnit.SECONDS);
    }
  }

  /**
   * Starts {@code provider.tryAcquire} on its own thread and returns once it stopped where {@code
   * stopAt} (given the pause) makes it stop.
   */
  private Stopped acquireStoppedAt(
      FileLockProvider provider, Duration ttl, Function<Pause, TestHooks> stopAt)
      throws InterruptedException {
    Pause pause = new Pause();
    provider.hooks(stopAt.apply(pause));
    Future<Optional<LeaseGrant>> result = pool.submit(() -> provider.tryAcquire(request(ID, ttl)));
    pause.awaitReached();
    return new Stopped(pause, result);
  }

  /** Between reading the counter (the token chosen) and storing the token in it. */
  private static TestHooks beforeCounterStore(Pause pause) {
    return new TestHooks() {
      @Override
      public void beforeCounterStore(String lockId, long token) {
        pause.here();
      }
    };
  }

  /** Inside a take-over, with the counter taken away and not yet replaced. */
  private static TestHooks beforeStealRaise(Pause pause) {
    return new TestHooks() {
      @Override
      public void beforeStealRaise(String lockId, long staleToken) {
        pause.here();
      }
    };
  }

  /** Inside an acquisition's slow path, with the counter taken away and not yet replaced. */
  private static TestHooks beforeSettlePublish(Pause pause) {
    return new TestHooks() {
      @Override
      public void beforeSettlePublish(String lockId) {
        pause.here();
      }
    };
  }

  /**
   * A grant that {@code who} got on resuming must be above every token issued meanwhile; it joins
   * the issued tokens and is released.
   */
  private static void recordResumed(
      FileLockProvider provider, Optional<LeaseGrant> resumed, List<Long> issued, String who) {
    long highest = Collections.max(issued);
    resumed.ifPresent(
        grant ->
            assertThat(grant.fencingToken())
                .as("a grant to %s must be above every token issued meanwhile", who)
                .isGreaterThan(highest));
    resumed.ifPresent(grant -> issued.add(grant.fencingToken()));
    if (resumed.isPresent()) {
      assertThat(provider.release(resumed.get())).isTrue();
    }
  }

  /**
   * While {@code paused} is stopped its lease is taken over and {@code others} are granted the
   * lock; then it resumes through {@code resumedBy}, others go on, and every token stays in grant
   * order.
   */
  private static void takenOverThenResumed(
      FileLockProvider others,
      Stopped paused,
      FileLockProvider resumedBy,
      List<Long> issued,
      String who)
      throws Exception {
    LeaseGrant stolen = takeOver(others);
    issued.add(stolen.fencingToken());
    assertThat(others.release(stolen)).isTrue();
    grantAndRelease(others, issued);
    Optional<LeaseGrant> resumed = paused.resume();

    recordResumed(resumedBy, resumed, issued, who);
    for (int i = 0; i < 3; i++) {
      grantAndRelease(others, issued);
    }
    assertThat(issued).as("tokens in grant order").isSorted().doesNotHaveDuplicates();
  }

  /** Writes a counter file in the earlier one-record format holding {@code token}. */
  private void writeFormatOneCounter(long token) throws Exception {
    StringBuilder text =
        new StringBuilder("locksmith-fence 1\nlock-id=" + ID + "\nlast-token=" + token + "\n");
    Files.write(LockFileNames.of(dir, ID).fence(), LockRecord.KeyValueText.seal(text));
  }

  /** Asserts that the directory holds the lock's counter file and nothing else. */
  private void assertOnlyTheCounterIsLeft(String why) throws Exception {
    try (Stream<Path> left = Files.list(dir)) {
      assertThat(left.map(p -> p.getFileName().toString()))
          .as(why)
          .containsExactly(LockFileNames.of(dir, ID).base() + ".fence");
    }
  }

  @Test
  void aReadThroughTheEarlyOpenedCounterAnsweredFromAStaleCacheNeverRepeatsAToken()
      throws Exception {
    // Another host, its clock a minute ahead, was granted the last token: above this host's clock.
    long ahead = FencingCounter.clockFloor() + TimeUnit.MINUTES.toMicros(1);
    Files.write(
        LockFileNames.of(dir, ID).fence(), CounterFile.newFile(ID, ahead, CounterFile.newStamp()));
    FileLockProvider provider = provider("");
    List<Long> issued = new ArrayList<>(List.of(ahead));
    grantAndRelease(provider, issued);
    // This host's NFS client answers the read through its early channel from pages cached before
    // that grant's write (the channel was opened before it): the earlier value, in its slot.
    provider.hooks(
        new TestHooks() {
          @Override
          public long readThroughEarlyOpen(String lockId, long value) {
            return ahead;
          }
        });

    grantAndRelease(provider, issued);
    grantAndRelease(provider, issued);

    assertThat(issued).as("tokens in grant order").isSorted().doesNotHaveDuplicates();
    assertThat(
            CounterFile.valueAt(LockFileNames.of(dir, ID).fence(), LockFileNames.of(dir, ID), ID))
        .isEqualTo(Collections.max(issued));
  }

  @Test
  void aHolderPausedBetweenReadingAndStoringTheCounterNeverRepeatsATokenWhenItResumes()
      throws Exception {
    FileLockProvider holder = provider("skew=0ms");
    FileLockProvider others = provider("skew=0ms");
    List<Long> issued = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      grantAndRelease(others, issued);
    }
    Stopped paused =
        acquireStoppedAt(holder, Duration.ofMillis(200), StaleWriterTest::beforeCounterStore);

    // Its lease runs out while it is stopped: a stealer takes over, then another holder follows.
    takenOverThenResumed(others, paused, holder, issued, "the resumed holder");
  }

  @Test
  void aStealerPausedBetweenReadingAndRaisingTheCounterNeverRepeatsATokenWhenItResumes()
      throws Exception {
    String query = "skew=0ms&garbled-grace=1s";
    FileLockProvider stealer = provider(query);
    FileLockProvider others = provider(query);
    List<Long> issued = new ArrayList<>();
    long last = 0;
    for (int i = 0; i < 3; i++) {
      last = grantAndRelease(others, issued);
    }
    // A holder wrote its record with the next token and died before storing it in the counter.
    writeDeadHolder(last + 1);
    Stopped paused = acquireStoppedAt(stealer, LONG, StaleWriterTest::beforeStealRaise);

    // The paused stealer's claim ages past the garbled grace; the next one takes over instead.
    takenOverThenResumed(others, paused, stealer, issued, "the resumed stealer");
    assertThat(issued.get(3)).as("above the dead holder's token").isGreaterThan(last + 1);
  }

  @Test
  void aStealerThatFailsWithTheCounterTakenAwayDoesNotBlockTheNextOne() throws Exception {
    FileLockProvider stealer = provider("skew=0ms");
    FileLockProvider next = provider("skew=0ms");
    List<Long> issued = new ArrayList<>();
    long last = counterAheadOfTheClock(next, issued); // so that a value lost would show
    writeDeadHolder(last + 1);
    stealer.hooks(
        new TestHooks() {
          @Override
          public void beforeStealRaise(String lockId, long staleToken) {
            throw new IllegalStateException("disk full, say");
          }
        });
    // The take-over fails half-way, with the counter taken away under its generation's name.
    assertThatThrownBy(() -> stealer.tryAcquire(request(ID, LONG)))
        .hasStackTraceContaining("disk full, say");

    LeaseGrant taken = next.tryAcquire(request(ID, LONG)).orElseThrow();

    assertThat(taken.fencingToken())
        .as("above the counter the failed stealer left")
        .isGreaterThan(last + 1);
    assertThat(next.release(taken)).isTrue();
  }

  @Test
  void aHolderWhoseSlowPathFailsWithTheCounterTakenAwayLosesNoValue() throws Exception {
    FileLockProvider holder = provider("skew=0ms");
    FileLockProvider others = provider("skew=0ms");
    List<Long> issued = new ArrayList<>();
    long last = counterAheadOfTheClock(others, issued); // so that a value lost would show
    writeFormatOneCounter(last); // the next acquisition replaces the counter (its slow path)
    holder.hooks(
        new TestHooks() {
          @Override
          public void beforeSettlePublish(String lockId) {
            throw new UncheckedIOException(new IOException("No space left on device"));
          }
        });
    assertThatThrownBy(() -> holder.tryAcquire(request(ID, Duration.ofMillis(300))))
        .hasMessageContaining("No space left on device");

    // Its lock file stays until its lease would have ended; the take-over counts the counter it
    // left at its owner-token name.
    LeaseGrant next = takeOver(others);
    assertThat(next.fencingToken())
        .as("above the counter the failed holder took away")
        .isGreaterThan(last);
    issued.add(next.fencingToken());
    assertThat(others.release(next)).isTrue();
    grantAndRelease(others, issued);
    assertThat(issued).isSorted().doesNotHaveDuplicates();
    assertOnlyTheCounterIsLeft("nothing left behind");
  }

  @Test
  void anAcquisitionWhoseFilesFailToCloseIsNotGrantedAndLeavesNoLockFile() throws Exception {
    FileLockProvider failing = provider("skew=0ms");
    FileLockProvider others = provider("skew=0ms");
    List<Long> issued = new ArrayList<>();
    grantAndRelease(others, issued);
    failing.hooks(
        new TestHooks() {
          @Override
          public void beforeAcquireClose(String lockId) {
            throw new UncheckedIOException(new IOException("Disk quota exceeded"));
          }
        });
    assertThatThrownBy(() -> failing.tryAcquire(request(ID, LONG)))
        .hasMessageContaining("Disk quota exceeded");
    assertOnlyTheCounterIsLeft("the lock file of the failed acquisition removed");
    long last = grantAndRelease(others, issued);

    // The same through the slow path, which has published the counter again before the close.
    writeFormatOneCounter(last);
    assertThatThrownBy(() -> failing.tryAcquire(request(ID, LONG)))
        .hasMessageContaining("Disk quota exceeded");
    assertOnlyTheCounterIsLeft("the lock file of the failed slow-path acquisition removed");
    grantAndRelease(others, issued);
    assertThat(issued).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void aStealerStalledCreatingItsClaimPastHalfTheGarbledGraceClaimsAgainBeforeTakingOver()
      throws Exception {
    Duration garbledGrace = Duration.ofSeconds(1);
    String query = "skew=0ms&garbled-grace=" + garbledGrace.toMillis() + "ms";
    FileLockProvider stealer = provider(query);
    FileLockProvider others = provider(query);
    List<Long> issued = new ArrayList<>();
    long last = grantAndRelease(others, issued);
    writeDeadHolder(last + 1);
    AtomicInteger claims = new AtomicInteger();
    Stopped stalled =
        acquireStoppedAt(
            stealer,
            LONG,
            pause ->
                new TestHooks() {
                  @Override
                  public void afterClaimCreate(String lockId) {
                    claims.incrementAndGet();
                    pause.here();
                  }
                });
    // The stall itself: others count the claim's age from its creation, so at half the grace it
    // has only the other half left before they may take the next generation.
    long stalledAt = System.nanoTime();
    Duration stall = garbledGrace.dividedBy(2).plusMillis(100);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> System.nanoTime() - stalledAt > stall.toNanos());

    LeaseGrant granted = stalled.resume().orElseThrow();
    assertThat(claims).as("gave the stalled claim up and took over on a new one").hasValue(2);
    assertThat(granted.fencingToken()).isGreaterThan(last + 1);
    assertThat(stealer.release(granted)).isTrue();
  }

  @Test
  void anAcquisitionThatLostItsFileWhilePausedAndThenFailsToCloseLeavesTheNewHoldersFile()
      throws Exception {
    FileLockProvider holder = provider("skew=0ms");
    FileLockProvider others = provider("skew=0ms");
    Stopped paused =
        acquireStoppedAt(
            holder,
            Duration.ofMillis(200),
            pause ->
                new TestHooks() {
                  @Override
                  public void beforeCounterStore(String lockId, long token) {
                    pause.here();
                  }

                  @Override
                  public void beforeAcquireClose(String lockId) {
                    // An NFS client reports a write into a file another host deleted at close.
                    throw new UncheckedIOException(new IOException("Stale file handle"));
                  }
                });
    // Its lease runs out while it is stopped, and another takes the lock over.
    LeaseGrant next = takeOver(others);

    resumesFailingAndLeavesTheNewHoldersFile(paused, others, next);
  }

  @Test
  void anAcquisitionWhoseRecordNeverReachedTheShareLeavesNoEmptyLockFileBehind() throws Exception {
    FileLockProvider failing = provider("skew=0ms");
    FileLockProvider others = provider("skew=0ms");
    LockFileNames.LockFiles files = LockFileNames.of(dir, ID);
    failing.hooks(
        new TestHooks() {
          @Override
          public void beforeAcquireClose(String lockId) {
            // The write went to the client's cache only; the share has an empty file, and the
            // close reports the failure.
            try {
              Files.write(files.lock(), new byte[0]);
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
            throw new UncheckedIOException(new IOException("Disk quota exceeded"));
          }
        });
    assertThatThrownBy(() -> failing.tryAcquire(request(ID, LONG)))
        .hasMessageContaining("Disk quota exceeded");

    assertOnlyTheCounterIsLeft("the empty lock file of the failed acquisition removed");
    assertThat(others.tryAcquire(request(ID, LONG))).as("the lock is free at once").isPresent();
  }

  @Test
  void anAcquisitionThatLostItsFileWhilePausedAndThenFailsItsCounterWriteLeavesTheNewHoldersFile()
      throws Exception {
    FileLockProvider holder = provider("skew=0ms");
    FileLockProvider others = provider("skew=0ms");
    Stopped paused =
        acquireStoppedAt(
            holder,
            Duration.ofMillis(200),
            pause ->
                new TestHooks() {
                  @Override
                  public void beforeCounterStore(String lockId, long token) {
                    pause.here();
                    // NFSv3 answers a write into a counter file another host deleted so.
                    throw new UncheckedIOException(new IOException("Stale file handle"));
                  }
                });
    LeaseGrant next = takeOver(others);

    resumesFailingAndLeavesTheNewHoldersFile(paused, others, next);
  }

  /**
   * Lets {@code paused}, whose lock file was taken over meanwhile, resume and fail with a stale
   * file handle; asserts that the new holder's lock file, {@code next}'s, was never moved away.
   */
  private void resumesFailingAndLeavesTheNewHoldersFile(
      Stopped paused, FileLockProvider others, LeaseGrant next) throws Exception {
    LockFileNames.LockFiles files = LockFileNames.of(dir, ID);
    try (WatchService watch = dir.getFileSystem().newWatchService()) {
      dir.register(
          watch, StandardWatchEventKinds.ENTRY_DELETE, StandardWatchEventKinds.ENTRY_CREATE);
      assertThatThrownBy(paused::resume).hasStackTraceContaining("Stale file handle");
      assertThat(deletedBefore(watch, dir.resolve("resumed")))
          .as("the new holder's lock file was never moved away")
          .doesNotContain(files.lock().getFileName());
    }
    assertThat(LockRecord.decode(Files.readAllBytes(files.lock())).fencingToken())
        .isEqualTo(next.fencingToken());
    assertThat(others.release(next)).isTrue();
  }

  /**
   * The names deleted (or renamed away) in the watched directory before {@code marker}, which this
   * creates: the watch reports events in order, so none still to come happened before it.
   */
  private static List<Path> deletedBefore(WatchService watch, Path marker) throws Exception {
    Files.createFile(marker);
    List<Path> deleted = new ArrayList<>();
    while (true) {
      WatchKey key = watch.poll(20, TimeUnit.SECONDS);
      assertThat(key).as("the watch saw the marker").isNotNull();
      for (WatchEvent<?> event : key.pollEvents()) {
        Path name = (Path) event.context();
        if (event.kind() == StandardWatchEventKinds.ENTRY_DELETE) {
          deleted.add(name);
        } else if (marker.getFileName().equals(name)) {
          return deleted;
        }
      }
      key.reset();
    }
  }

  @Test
  void anAcquisitionWhoseWriteFailsAfterOthersTookItsFileOverLeavesTheNewHoldersFile()
      throws Exception {
    FileLockProvider stalled = provider("skew=0ms");
    LockFileNames.LockFiles files = LockFileNames.of(dir, ID);
    long now = System.currentTimeMillis();
    LockRecord newHolder =
        new LockRecord(ID, "new", 42, now + 60_000, 60_000, "new", "host", 1, "t", now);
    stalled.hooks(
        new TestHooks() {
          @Override
          public void beforeLockWrite(String lockId) {
            // The write stalls past the garbled grace: others take the empty file over, and a new
            // holder creates its own at the name. Then the write fails.
            try {
              Files.delete(files.lock());
              Files.write(files.lock(), newHolder.encode());
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
            throw new IllegalStateException("EIO, say");
          }
        });

    assertThatThrownBy(() -> stalled.tryAcquire(request(ID, LONG)))
        .hasStackTraceContaining("EIO, say");

    assertThat(LockRecord.decode(Files.readAllBytes(files.lock()))).isEqualTo(newHolder);
  }

  @Test
  void anAcquisitionWhoseNewLockFileIsRenamedAwayIsNotGrantedBesideTheNextHolder()
      throws Exception {
    // A stealer or releaser stalled past its checks renames the new lock file away by name, and
    // another process creates its own before the put-back: the first must not be granted, beside
    // it, the token the second was granted (the counter is ahead of the clock, so they would
    // match).
    FileLockProvider first = provider("skew=0ms");
    FileLockProvider second = provider("skew=0ms");
    List<Long> issued = new ArrayList<>();
    counterAheadOfTheClock(second, issued);
    LockFileNames.LockFiles files = LockFileNames.of(dir, ID);
    List<LeaseGrant> meanwhile = new ArrayList<>();
    first.hooks(
        new TestHooks() {
          @Override
          public void beforeLockWrite(String lockId) {
            try {
              Files.move(files.lock(), dir.resolve("renamed-away"));
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
            meanwhile.add(second.tryAcquire(request(ID, LONG)).orElseThrow());
          }
        });

    assertThat(first.tryAcquire(request(ID, LONG))).as("its lock file is another's").isEmpty();

    LeaseGrant held = meanwhile.get(0);
    issued.add(held.fencingToken());
    assertThat(second.release(held)).isTrue();
    grantAndRelease(second, issued);
    assertThat(issued).isSorted().doesNotHaveDuplicates();
  }

  /** A lock file of a holder that died with {@code token}, expired 10 s ago. */
  private void writeDeadHolder(long token) throws Exception {
    long now = System.currentTimeMillis();
    LockRecord dead =
        new LockRecord(ID, "dead", token, now - 10_000, 1, "dead/1/t", "dead", 1, "t", now);
    Files.write(LockFileNames.of(dir, ID).lock(), dead.encode());
  }

  /** A counter far above the clock, so that a value lost on the way would show in the tokens. */
  private long counterAheadOfTheClock(FileLockProvider provider, List<Long> issued)
      throws Exception {
    long ahead = FencingCounter.clockFloor() + Duration.ofDays(1).toNanos() / 1_000;
    writeFormatOneCounter(ahead);
    long last = 0;
    for (int i = 0; i < 2; i++) {
      last = grantAndRelease(provider, issued);
    }
    assertThat(last).isGreaterThan(ahead);
    return last;
  }

  @Test
  void aStealerThatStopsWithTheCounterTakenAwayLosesNoValue() throws Exception {
    String query = "skew=0ms&garbled-grace=1s";
    FileLockProvider stealer = provider(query);
    FileLockProvider others = provider(query);
    List<Long> issued = new ArrayList<>();
    long last = counterAheadOfTheClock(others, issued);
    // A holder died before writing its record: an empty lock file, old enough to take over. It
    // carries no token, so only the counter knows how far tokens went.
    LockFileNames.LockFiles files = LockFileNames.of(dir, ID);
    Files.createFile(files.lock());
    Files.setLastModifiedTime(
        files.lock(), FileTime.fromMillis(System.currentTimeMillis() - 5_000));
    Stopped paused = acquireStoppedAt(stealer, LONG, StaleWriterTest::beforeStealRaise);
    assertThat(files.fence()).as("taken away by the paused stealer").doesNotExist();

    LeaseGrant next = takeOver(others);
    assertThat(next.fencingToken())
        .as("the next claim generation counted the counter the paused stealer left")
        .isGreaterThan(last);
    issued.add(next.fencingToken());
    assertThat(others.release(next)).isTrue();
    recordResumed(stealer, paused.resume(), issued, "the resumed stealer");
    grantAndRelease(others, issued);
    assertThat(issued).isSorted().doesNotHaveDuplicates();
    assertOnlyTheCounterIsLeft("nothing left behind");
  }

  @Test
  void aHolderThatStopsWithTheCounterTakenAwayInItsSlowPathLosesNoValue() throws Exception {
    FileLockProvider holder = provider("skew=0ms");
    FileLockProvider others = provider("skew=0ms");
    List<Long> issued = new ArrayList<>();
    long last = counterAheadOfTheClock(others, issued);
    // An operator restores the counter from a backup in the earlier format: the next acquisition
    // cannot update it in place and replaces it (its slow path).
    LockFileNames.LockFiles files = LockFileNames.of(dir, ID);
    writeFormatOneCounter(last);
    Stopped paused =
        acquireStoppedAt(holder, Duration.ofMillis(200), StaleWriterTest::beforeSettlePublish);
    assertThat(files.fence()).as("taken away by the paused holder").doesNotExist();

    // Its lease runs out; the take-over counts the counter it left at its owner-token name.
    LeaseGrant next = takeOver(others);
    assertThat(next.fencingToken()).isGreaterThan(last);
    issued.add(next.fencingToken());
    assertThat(others.release(next)).isTrue();
    assertOnlyTheCounterIsLeft(
        "the take-over took over the counter file the paused holder had taken away");
    assertThat(paused.resume()).as("its lock file was taken over while it paused").isEmpty();
    grantAndRelease(others, issued);
    assertThat(issued).isSorted().doesNotHaveDuplicates();
    assertOnlyTheCounterIsLeft("nothing left behind");
  }
}
