package dev.locksmith.file;

import static dev.locksmith.file.TestProviders.deleteDirectory;
import static dev.locksmith.file.TestProviders.request;
import static dev.locksmith.testkit.ProviderFailures.failsWithin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lock directory missing at start, vanishing while leases are held (as when its share is
 * unmounted), and replaced by a regular file: creating the provider never needs the directory,
 * calls fail at once with one line naming it, and work again as soon as it is back, on the same
 * provider.
 */
class DirectoryOutageTest {
  private static final Duration TTL = Duration.ofSeconds(30);

  /** Local file-system errors come back at once; this is far above them. */
  private static final Duration FAIL_BOUND = Duration.ofSeconds(1);

  @TempDir Path dir;
  private final List<LockProvider> providers = new ArrayList<>();

  @AfterEach
  void close() {
    providers.forEach(LockProvider::close);
  }

  private LockProvider provider(Path directory, String query) {
    long start = System.nanoTime();
    LockProvider provider = LockProviders.create(TestProviders.url(directory, query));
    providers.add(provider);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("creating the provider")
        .isLessThan(Duration.ofSeconds(1));
    return provider;
  }

  @Test
  void createdBeforeTheDirectoryExistsItWorksOnceItIsMade() throws Exception {
    Path locks = dir.resolve("not-yet");
    LockProvider provider = provider(locks, "");

    LockProviderException missing =
        failsWithin(FAIL_BOUND, () -> provider.tryAcquire(request("early", TTL)));
    assertThat(missing)
        .hasMessage(
            "lock directory "
                + locks
                + " does not exist (not created yet, deleted, or its share not mounted); create"
                + " it or add create-dirs=true to the URL")
        .hasCauseInstanceOf(NoSuchFileException.class);
    failsWithin(FAIL_BOUND, () -> provider.status("early"));

    Files.createDirectory(locks);
    grantedOnceBack(provider, "early");
  }

  @Test
  void aDirectoryThatVanishesFailsCallsWithoutLosingLeasesAndServesThemWhenBack() throws Exception {
    Path locks = Files.createDirectory(dir.resolve("share"));
    Path away = dir.resolve("share-unmounted");
    LockProvider provider = provider(locks, "");
    LeaseGrant lease = provider.tryAcquire(request("held", TTL)).orElseThrow();

    Files.move(locks, away, StandardCopyOption.ATOMIC_MOVE);
    assertThat(failsWithin(FAIL_BOUND, () -> provider.renew(lease, TTL)))
        .as("not reported as ended: the lock file is out of sight, not gone")
        .hasMessageContaining("lock directory " + locks + " does not exist");
    failsWithin(FAIL_BOUND, () -> provider.release(lease));
    failsWithin(FAIL_BOUND, () -> provider.status("held"));
    failsWithin(FAIL_BOUND, () -> provider.tryAcquire(request("other", TTL)));

    Files.move(away, locks, StandardCopyOption.ATOMIC_MOVE);
    LeaseGrant renewed =
        await()
            .atMost(FAIL_BOUND)
            .ignoreException(LockProviderException.class)
            .until(() -> provider.renew(lease, TTL), Optional::isPresent)
            .orElseThrow();
    assertThat(renewed.fencingToken()).isEqualTo(lease.fencingToken());
    assertThat(provider.status("held").currentHolder()).isPresent();
    assertThat(provider.release(renewed)).isTrue();
  }

  @Test
  void aDirectoryReplacedByAFileFailsCallsUntilItIsADirectoryAgain() throws Exception {
    Path locks = Files.createDirectory(dir.resolve("replaced"));
    LockProvider provider = provider(locks, "");
    LeaseGrant first = provider.tryAcquire(request("r", TTL)).orElseThrow();
    assertThat(provider.release(first)).isTrue();
    deleteDirectory(locks);
    Files.writeString(locks, "not a directory");

    assertThat(failsWithin(FAIL_BOUND, () -> provider.tryAcquire(request("r", TTL))))
        .hasMessage("lock directory " + locks + " is not a directory");

    Files.delete(locks);
    Files.createDirectory(locks);
    grantedOnceBack(provider, "r");
  }

  @Test
  void withCreateDirsADeletedDirectoryIsCreatedAgainByTheCallThatFindsItMissing() throws Exception {
    Path locks = dir.resolve("made/on/demand");
    LockProvider provider = provider(locks, "create-dirs=true");
    assertThat(locks).doesNotExist();
    LeaseGrant lease = provider.tryAcquire(request("c", TTL)).orElseThrow();
    assertThat(provider.release(lease)).isTrue();

    deleteDirectory(locks);
    assertThat(failsWithin(FAIL_BOUND, () -> provider.tryAcquire(request("c", TTL))))
        .as("the call that finds it missing creates it again")
        .hasMessageContaining("lock directory " + locks + " was missing");
    assertThat(locks).isDirectory();
    assertThat(provider.tryAcquire(request("c", TTL))).isPresent();
  }

  @Test
  void aPathThatIsARegularFileIsAWrongUrlAtCreation() throws Exception {
    Path file = Files.writeString(dir.resolve("file"), "x");
    assertThatThrownBy(() -> LockProviders.create(TestProviders.url(file, "")))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("'" + file + "' is not a directory");
  }

  /** Waits until the directory serves {@code id} again, then releases it. */
  private static void grantedOnceBack(LockProvider provider, String id) {
    LeaseGrant lease =
        await()
            .atMost(FAIL_BOUND)
            .ignoreException(LockProviderException.class)
            .until(() -> provider.tryAcquire(request(id, TTL)), Optional::isPresent)
            .orElseThrow();
    assertThat(provider.release(lease)).isTrue();
  }
}
