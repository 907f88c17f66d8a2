package dev.locksmith.file;

import static dev.locksmith.file.TestProviders.awaitGranted;
import static dev.locksmith.file.TestProviders.open;
import static dev.locksmith.file.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class FileLockProviderTest {
  private static final Duration LONG = Duration.ofSeconds(30);

  @TempDir Path dir;
  @RegisterExtension final OpenedProviders providers = new OpenedProviders();

  private FileLockProvider provider(String query) {
    return providers.open(dir, query);
  }

  @Test
  void aHeldLockIsExclusiveAcrossProvidersUntilReleased() {
    FileLockProvider a = provider("");
    FileLockProvider b = provider("");
    LeaseGrant lease = a.tryAcquire(request("job", LONG)).orElseThrow();

    assertThat(b.tryAcquire(request("job", LONG))).isEmpty();
    assertThat(b.status("job").currentHolder())
        .hasValueSatisfying(h -> assertThat(h.fencingToken()).isEqualTo(lease.fencingToken()));
    assertThat(a.release(lease)).isTrue();
    assertThat(b.status("job").currentHolder()).isEmpty();
    assertThat(b.tryAcquire(request("job", LONG))).isPresent();
  }

  @Test
  void theLockFileRecordsIdOwnerTokensExpiryAndHolder() throws Exception {
    FileLockProvider a = provider("");
    LockRequest request = new LockRequest("orders:42", "tok-1", LONG, "web-1/99/worker");
    long before = System.currentTimeMillis();
    LeaseGrant lease = a.tryAcquire(request).orElseThrow();

    Path lock = LockFileNames.of(dir, "orders:42").lock();
    LockRecord record = LockRecord.decode(Files.readAllBytes(lock));
    assertThat(record.lockId()).isEqualTo("orders:42");
    assertThat(record.ownerToken()).isEqualTo("tok-1");
    assertThat(record.fencingToken()).isEqualTo(lease.fencingToken());
    assertThat(record.expiresAtMillis())
        .isBetween(before + 30_000, System.currentTimeMillis() + 30_000);
    assertThat(record.owner()).isEqualTo("web-1/99/worker");
    assertThat(record.pid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(record.thread()).isEqualTo(Thread.currentThread().getName());
    assertThat(Files.readString(lock)).contains("expires-at-utc=", "acquired-at-utc=");
  }

  @Test
  void fencingTokensIncreaseAcrossReleasesAndProviderRestarts() {
    long last = 0;
    for (int i = 0; i < 5; i++) {
      try (FileLockProvider fresh = open(dir, "")) {
        LeaseGrant lease = fresh.tryAcquire(request("fenced", LONG)).orElseThrow();
        assertThat(lease.fencingToken()).isGreaterThan(last);
        last = lease.fencingToken();
        assertThat(fresh.release(lease)).isTrue();
      }
    }
    assertThat(last).as("at least the clock in microseconds").isGreaterThan(1_700_000_000_000_000L);
  }

  @Test
  void aLeaseOnAVeryLongLockIdIsRenewedLikeAnyOther() {
    // Its record passed the 1 MiB that renew took for the longest record: renew found no record
    // and the lease was lost, while status and release (which read without that cap) still saw it.
    FileLockProvider a = provider("");
    String huge = "batch:" + "x".repeat(1_100_000);
    LeaseGrant lease = a.tryAcquire(request(huge, LONG)).orElseThrow();

    LeaseGrant renewed = a.renew(lease, LONG).orElseThrow();
    assertThat(renewed.fencingToken()).isEqualTo(lease.fencingToken());
    assertThat(a.release(renewed)).isTrue();
  }

  @Test
  void renewExtendsTheLeaseInTheFileAndLocally() throws Exception {
    FileLockProvider a = provider("");
    LeaseGrant lease = a.tryAcquire(request("renewed", Duration.ofSeconds(5))).orElseThrow();
    Path lock = LockFileNames.of(dir, "renewed").lock();
    long expiryBefore = LockRecord.decode(Files.readAllBytes(lock)).expiresAtMillis();

    LeaseGrant renewed = a.renew(lease, Duration.ofMinutes(10)).orElseThrow();

    assertThat(renewed.fencingToken()).isEqualTo(lease.fencingToken());
    assertThat(renewed.timeLeft()).isGreaterThan(Duration.ofMinutes(9));
    assertThat(LockRecord.decode(Files.readAllBytes(lock)).expiresAtMillis())
        .isGreaterThan(expiryBefore + 500_000);
    assertThat(Files.list(dir).map(p -> p.getFileName().toString()))
        .noneMatch(n -> n.endsWith(".tmp"));
  }

  @Test
  void aRenewalNeverReplacesARecordItDoesNotOwn() throws Exception {
    FileLockProvider a = provider("");
    LeaseGrant lease = a.tryAcquire(request("renew-race", LONG)).orElseThrow();
    Path lock = LockFileNames.of(dir, "renew-race").lock();
    long now = System.currentTimeMillis();
    LockRecord theirs =
        new LockRecord(
            "renew-race",
            "other-owner",
            lease.fencingToken() + 1,
            now + 60_000,
            60_000,
            "web-2/7/worker",
            "web-2",
            7,
            "worker",
            now);
    a.hooks(
        new TestHooks() {
          @Override
          public void beforeRenewWrite(String lockId) {
            // Between the renewer's check and its write, another owner takes the lock over (its
            // clock ran ahead, or the renewer paused): its record replaces the file atomically.
            try {
              Path temp = dir.resolve("theirs.tmp");
              Files.write(temp, theirs.encode());
              Files.move(
                  temp, lock, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          }
        });

    assertThat(a.renew(lease, LONG)).as("the renewal of a lost lease").isEmpty();

    assertThat(LockRecord.decode(Files.readAllBytes(lock))).isEqualTo(theirs);
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .noneMatch(n -> n.endsWith(".tmp") || n.endsWith(".tomb"));
    }
  }

  @Test
  void aReleaseWhoseReadOfTheMovedFileFailsPutsItBackAndCanBeDoneAgain() throws Exception {
    // The read of the tomb failed (a share's transient error) and the tomb was left: the lock file
    // was gone without its owner knowing whose it was, and the release could never be repeated.
    FileLockProvider a = provider("");
    LeaseGrant lease = a.tryAcquire(request("tomb-read", LONG)).orElseThrow();
    Path lock = LockFileNames.of(dir, "tomb-read").lock();
    a.hooks(
        new TestHooks() {
          @Override
          public void afterTombMove(String lockId) throws IOException {
            a.hooks(TestHooks.NONE);
            throw new IOException("Stale file handle");
          }
        });

    assertThatThrownBy(() -> a.release(lease))
        .isInstanceOf(LockProviderException.class)
        .hasRootCauseMessage("Stale file handle");

    assertThat(lock).as("the lock file, put back").exists();
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tomb"));
    }
    assertThat(provider("").tryAcquire(request("tomb-read", LONG))).as("still held").isEmpty();
    assertThat(a.release(lease)).as("the release done again").isTrue();
    assertThat(lock).doesNotExist();
  }

  @Test
  void tokensKeepRisingWhenTheCounterFileIsDeleted() throws Exception {
    FileLockProvider a = provider("");
    long last = 0;
    for (int i = 0; i < 3; i++) {
      LeaseGrant lease = a.tryAcquire(request("cleaned", LONG)).orElseThrow();
      assertThat(lease.fencingToken()).isGreaterThan(last);
      last = lease.fencingToken();
      assertThat(a.release(lease)).isTrue();
    }
    // An operator cleans up the directory.
    Files.delete(LockFileNames.of(dir, "cleaned").fence());

    LeaseGrant after = a.tryAcquire(request("cleaned", LONG)).orElseThrow();
    assertThat(after.fencingToken()).isGreaterThan(last);
  }

  @Test
  void anExpiredLeaseIsTakenOverAfterTheSkewAndItsHolderCanChangeNothing() throws Exception {
    FileLockProvider a = provider("skew=100ms");
    FileLockProvider b = provider("skew=100ms");
    LeaseGrant stale = a.tryAcquire(request("lease", Duration.ofMillis(200))).orElseThrow();
    long acquired = System.nanoTime();

    LeaseGrant fresh = awaitGranted(b, "lease", LONG, Duration.ofSeconds(5));

    assertThat(Duration.ofNanos(System.nanoTime() - acquired))
        .isGreaterThan(Duration.ofMillis(300));
    assertThat(fresh.fencingToken()).isGreaterThan(stale.fencingToken());
    assertThat(a.renew(stale, LONG)).isEmpty();
    assertThat(a.release(stale)).isFalse();
    assertThat(a.status("lease").currentHolder())
        .hasValueSatisfying(h -> assertThat(h.fencingToken()).isEqualTo(fresh.fencingToken()));
    assertThat(b.release(fresh)).isTrue();
  }

  @Test
  void aStaleHolderWhoseLocalDeadlineHasNotPassedStillCannotTouchANewHoldersFile() {
    FileLockProvider a = provider("skew=0ms");
    FileLockProvider b = provider("skew=0ms");
    LeaseGrant mine = a.tryAcquire(request("other", LONG)).orElseThrow();
    assertThat(a.release(mine)).isTrue();
    LeaseGrant theirs = b.tryAcquire(request("other", LONG)).orElseThrow();

    assertThat(a.release(mine)).isFalse();
    assertThat(a.renew(mine, LONG)).isEmpty();
    assertThat(b.status("other").currentHolder())
        .hasValueSatisfying(h -> assertThat(h.fencingToken()).isEqualTo(theirs.fencingToken()));
  }

  @Test
  void aTruncatedLockFileCountsAsHeldUntilTheGarbledGraceThenIsTakenOver() throws Exception {
    FileLockProvider a = provider("skew=0ms&garbled-grace=1s");
    LeaseGrant first = a.tryAcquire(request("torn", LONG)).orElseThrow();
    Path lock = LockFileNames.of(dir, "torn").lock();
    byte[] full = Files.readAllBytes(lock);
    Files.write(lock, java.util.Arrays.copyOf(full, full.length / 2));

    assertThat(a.tryAcquire(request("torn", LONG))).isEmpty();
    LockStatus status = a.status("torn");
    assertThat(status.currentHolder())
        .hasValueSatisfying(h -> assertThat(h.owner()).contains("unreadable lock file"));
    assertThat(a.renew(first, LONG)).isEmpty();
    assertThat(a.release(first)).isFalse();

    Files.setLastModifiedTime(lock, FileTime.fromMillis(System.currentTimeMillis() - 5_000));
    LeaseGrant next = a.tryAcquire(request("torn", LONG)).orElseThrow();
    assertThat(next.fencingToken()).isGreaterThan(first.fencingToken());
  }

  @Test
  void aRenewalWhoseWriteFailsPartWayPutsTheRecordBackSoTheLeaseIsNotTakenOverAfterTheGrace()
      throws Exception {
    FileLockProvider a = provider("skew=0ms&garbled-grace=1s");
    FileLockProvider b = provider("skew=0ms&garbled-grace=1s");
    LeaseGrant lease = a.tryAcquire(request("torn-renewal", LONG)).orElseThrow();
    Path lock = LockFileNames.of(dir, "torn-renewal").lock();
    byte[] held = Files.readAllBytes(lock);
    a.hooks(
        new TestHooks() {
          @Override
          public void beforeRenewWrite(String lockId) {
            // The write fails part-way (a soft mount's EIO), leaving half a record.
            try {
              Files.write(lock, java.util.Arrays.copyOf(held, held.length / 2));
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
            throw new UncheckedIOException(new IOException("Input/output error"));
          }
        });

    assertThatThrownBy(() -> a.renew(lease, LONG)).hasStackTraceContaining("Input/output error");

    assertThat(LockRecord.decode(Files.readAllBytes(lock)))
        .as("the record the renewal replaced, readable again")
        .isEqualTo(LockRecord.decode(held));
    Files.setLastModifiedTime(lock, FileTime.fromMillis(System.currentTimeMillis() - 5_000));
    assertThat(b.tryAcquire(request("torn-renewal", LONG)))
        .as("a live lease, not an unreadable file past the grace")
        .isEmpty();
    a.hooks(TestHooks.NONE);
    assertThat(a.release(lease)).isTrue();
  }

  @Test
  void anEmptyLockFileLeftByACrashBeforeTheWriteIsHandled() throws Exception {
    FileLockProvider a = provider("skew=0ms&garbled-grace=1s");
    Path lock = LockFileNames.of(dir, "empty").lock();
    Files.createFile(lock);

    assertThat(a.tryAcquire(request("empty", LONG))).isEmpty();
    Files.setLastModifiedTime(lock, FileTime.fromMillis(System.currentTimeMillis() - 5_000));
    assertThat(a.tryAcquire(request("empty", LONG))).isPresent();
  }

  @Test
  void aCrashBetweenLockFileAndCounterNeverRepeatsAToken() throws Exception {
    FileLockProvider a = provider("skew=0ms");
    LeaseGrant lease = a.tryAcquire(request("crash", LONG)).orElseThrow();
    Path lock = LockFileNames.of(dir, "crash").lock();
    LockRecord record = LockRecord.decode(Files.readAllBytes(lock));
    // As if a holder wrote a token into an expired lock file and died before persisting it (a
    // token well above the clock, so the next grant can only come from the file).
    long dead = FencingCounter.clockFloor() + 1_000_000_000_000L;
    LockRecord crashed =
        new LockRecord(
            "crash",
            "dead",
            dead,
            System.currentTimeMillis() - 10_000,
            1,
            "dead/1/t",
            "dead",
            1,
            "t",
            0);
    Files.write(lock, crashed.encode());
    assertThat(record.fencingToken()).isEqualTo(lease.fencingToken());

    LeaseGrant next = a.tryAcquire(request("crash", LONG)).orElseThrow();
    assertThat(next.fencingToken()).isEqualTo(dead + 1);
  }

  @Test
  void anUnreadableCounterFileFailsWithTheFileNamed() throws Exception {
    FileLockProvider a = provider("");
    LockFileNames.LockFiles files = LockFileNames.of(dir, "counted");
    Files.writeString(files.fence(), "garbage");

    assertThatThrownBy(() -> a.tryAcquire(request("counted", LONG)))
        .isInstanceOf(LockProviderException.class)
        .hasMessageContaining(files.fence().toString())
        .hasMessageContaining("repeated fencing token");
    assertThat(files.lock()).doesNotExist();
  }

  @Test
  void aCounterFileThatCannotBeOpenedIsTheFileNamed() throws Exception {
    // The message named the lock file, which did not exist, while the counter file was at fault
    // (a counter another user created, not writable by this one).
    FileLockProvider a = provider("");
    LockFileNames.LockFiles files = LockFileNames.of(dir, "counted");
    Files.createDirectory(files.fence());

    assertThatThrownBy(() -> a.tryAcquire(request("counted", LONG)))
        .isInstanceOf(LockProviderException.class)
        .hasMessageContaining("fencing counter " + files.fence())
        .hasMessageNotContaining(files.lock().toString());
    assertThat(files.lock()).doesNotExist();
  }

  @Test
  void createdFilesGetTheConfiguredPermissions() throws Exception {
    FileLockProvider defaults = provider("");
    defaults.tryAcquire(request("perm", LONG)).orElseThrow();
    LockFileNames.LockFiles files = LockFileNames.of(dir, "perm");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(files.lock())))
        .isEqualTo("rw-rw----");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(files.fence())))
        .isEqualTo("rw-rw----");

    FileLockProvider custom = provider("mode=rw-r--r--");
    custom.tryAcquire(request("perm2", LONG)).orElseThrow();
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(LockFileNames.of(dir, "perm2").lock())))
        .isEqualTo("rw-r--r--");
  }

  @Test
  void awkwardLockIdsStayInsideTheDirectory() throws Exception {
    Path locks = dir.resolve("locks");
    FileLockProvider a = providers.open(locks, "create-dirs=true");
    for (String id :
        List.of("../../escape", "/abs", "a/b", "x".repeat(5_000), "Ключ:1", "Lock", "lock")) {
      LeaseGrant lease = a.tryAcquire(request(id, LONG)).orElseThrow();
      assertThat(a.status(id).currentHolder()).isPresent();
      assertThat(LockRecord.decode(Files.readAllBytes(LockFileNames.of(locks, id).lock())).lockId())
          .isEqualTo(id);
      assertThat(lease.lockId()).isEqualTo(id);
    }
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".lock"));
    }
    try (Stream<Path> files = Files.list(locks)) {
      assertThat(files.filter(p -> p.toString().endsWith(".lock"))).hasSize(7);
    }
  }

  @Test
  void acquireWaitsForARelease() throws Exception {
    FileLockProvider a = provider("poll-max=50ms");
    FileLockProvider b = provider("poll-max=50ms");
    LeaseGrant held = a.tryAcquire(request("wait", LONG)).orElseThrow();
    ExecutorService executor = Executors.newSingleThreadExecutor();
    try {
      CountDownLatch started = new CountDownLatch(1);
      Future<Optional<LeaseGrant>> waiting =
          executor.submit(
              () -> {
                started.countDown();
                return b.acquire(request("wait", LONG), Duration.ofSeconds(20));
              });
      started.await();
      assertThat(waiting.isDone()).isFalse();
      assertThat(a.release(held)).isTrue();
      LeaseGrant got = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
      assertThat(got.fencingToken()).isGreaterThan(held.fencingToken());
    } finally {
      executor.shutdownNow();
    }
  }

  @Test
  void acquireReturnsEmptyWhenTheTimeoutRunsOut() throws Exception {
    FileLockProvider a = provider("poll-max=20ms");
    a.tryAcquire(request("busy", LONG)).orElseThrow();
    long start = System.nanoTime();
    assertThat(a.acquire(request("busy", LONG), Duration.ofMillis(150))).isEmpty();
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(150));
  }

  @Test
  void anInterruptedWaitThrowsAndLeavesNothingHeld() throws Exception {
    FileLockProvider a = provider("");
    LeaseGrant held = a.tryAcquire(request("intr", LONG)).orElseThrow();
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread waiter =
        new Thread(
            () -> {
              try {
                a.acquire(request("intr", LONG), Duration.ofMinutes(1));
              } catch (Throwable t) {
                thrown.set(t);
              }
              done.complete(null);
            });
    waiter.start();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
    waiter.interrupt();
    done.get(5, TimeUnit.SECONDS);

    assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
    assertThat(a.status("intr").currentHolder())
        .hasValueSatisfying(h -> assertThat(h.fencingToken()).isEqualTo(held.fencingToken()));
    assertThat(a.release(held)).isTrue();
  }

  /**
   * An interrupt that lands while an attempt writes its lock file (a cancelled waiter) fails the
   * attempt, and its clean-up still removes the file: run with the interrupt flag set, the
   * clean-up's own I/O failed too and put the file back, leaving a lock nobody held for its TTL.
   */
  @Test
  void anAttemptInterruptedMidWriteLeavesNoLockFile() throws Exception {
    FileLockProvider a = provider("");
    a.hooks(
        new TestHooks() {
          @Override
          public void beforeLockWrite(String lockId) {
            Thread.currentThread().interrupt();
          }
        });
    assertThatThrownBy(() -> a.acquire(request("cancelled", LONG), Duration.ofSeconds(5)))
        .isInstanceOf(InterruptedException.class);
    assertThat(Thread.interrupted()).as("the flag is cleared by the exception").isFalse();

    FileLockProvider b = provider("");
    assertThat(b.tryAcquire(request("cancelled", LONG)))
        .as("the interrupted attempt left nothing held")
        .isPresent();
  }

  @Test
  void aFileWrittenByHandIsNotMistakenForALease() throws Exception {
    FileLockProvider a = provider("skew=0ms&garbled-grace=1s");
    Path lock = LockFileNames.of(dir, "hand").lock();
    Files.writeString(lock, "locked by ops\n", StandardCharsets.UTF_8);
    assertThat(a.tryAcquire(request("hand", LONG))).isEmpty();
    assertThat(Files.readString(lock)).isEqualTo("locked by ops\n");
  }
}
