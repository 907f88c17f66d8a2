package dev.locksmith.file;

import static dev.locksmith.file.TestProviders.awaitGranted;
import static dev.locksmith.file.TestProviders.deleteDirectory;
import static dev.locksmith.file.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.RenewalRequest;
import dev.locksmith.testkit.RenewalChecks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FileLockProvider#renewAll} on real lock files: one pass renews each lease as {@code renew}
 * does, in request order, and answers empty for a lease another holder took over.
 */
class FileRenewAllTest {
  private static final Duration TTL = Duration.ofSeconds(10);
  private static final Duration LONGER = Duration.ofSeconds(60);

  @TempDir Path dir;
  @RegisterExtension final OpenedProviders providers = new OpenedProviders();

  @Test
  void fiftyLeasesAreEachExtendedAndAStolenOneIsAnsweredEmpty() throws Exception {
    FileLockProvider holder = providers.open(dir, "skew=100ms");
    FileLockProvider stealer = providers.open(dir, "skew=100ms");
    List<RenewalRequest> requests = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      Duration ttl = i == 17 ? Duration.ofMillis(300) : TTL;
      LeaseGrant grant = holder.tryAcquire(request("renew-all-" + i, ttl)).orElseThrow();
      requests.add(new RenewalRequest(grant, i == 17 ? ttl : LONGER));
    }
    LeaseGrant stolen = awaitGranted(stealer, "renew-all-17", TTL, Duration.ofSeconds(5));
    long sent = System.nanoTime();
    long wallBefore = System.currentTimeMillis();

    List<Optional<LeaseGrant>> renewed = holder.renewAll(requests);

    assertThat(renewed).hasSize(50);
    for (int i = 0; i < 50; i++) {
      if (i == 17) {
        assertThat(renewed.get(i)).as("taken over by another holder").isEmpty();
        continue;
      }
      LeaseGrant before = requests.get(i).lease();
      LeaseGrant lease =
          RenewalChecks.assertRenewed(before, renewed.get(i), sent, LONGER, "lease " + i);
      assertThat(lease.ttl()).isEqualTo(LONGER);
      LockRecord record =
          LockRecord.decode(Files.readAllBytes(LockFileNames.of(dir, before.lockId()).lock()));
      assertThat(record.fencingToken()).isEqualTo(before.fencingToken());
      assertThat(record.expiresAtMillis()).isGreaterThanOrEqualTo(wallBefore + LONGER.toMillis());
    }
    assertThat(holder.status("renew-all-17").currentHolder())
        .hasValueSatisfying(h -> assertThat(h.fencingToken()).isEqualTo(stolen.fencingToken()));
  }

  @Test
  void answersKeepRequestOrderAndAReleasedLeaseIsAnsweredEmpty() {
    FileLockProvider provider = providers.open(dir, "");
    LeaseGrant a = provider.tryAcquire(request("order-a", TTL)).orElseThrow();
    LeaseGrant b = provider.tryAcquire(request("order-b", TTL)).orElseThrow();
    LeaseGrant c = provider.tryAcquire(request("order-c", TTL)).orElseThrow();
    assertThat(provider.release(b)).isTrue();

    List<Optional<LeaseGrant>> renewed =
        provider.renewAll(
            List.of(
                new RenewalRequest(c, TTL),
                new RenewalRequest(b, TTL),
                new RenewalRequest(a, TTL)));

    assertThat(renewed.get(0)).hasValueSatisfying(l -> assertThat(l.lockId()).isEqualTo("order-c"));
    assertThat(renewed.get(1)).isEmpty();
    assertThat(renewed.get(2)).hasValueSatisfying(l -> assertThat(l.lockId()).isEqualTo("order-a"));
  }

  @Test
  void aVanishedDirectoryFailsTheBatch() throws Exception {
    Path sub = Files.createDirectory(dir.resolve("locks"));
    FileLockProvider provider = providers.open(sub, "");
    LeaseGrant grant = provider.tryAcquire(request("gone", TTL)).orElseThrow();
    deleteDirectory(sub);

    assertThatThrownBy(() -> provider.renewAll(List.of(new RenewalRequest(grant, TTL))))
        .isInstanceOf(LockProviderException.class)
        .hasMessageContaining(sub.toString());
  }

  @Test
  void moreThan512RenewalsAreRefusedAndAnEmptyBatchIsAnsweredEmpty() {
    FileLockProvider provider = providers.open(dir, "");
    LeaseGrant grant = provider.tryAcquire(request("too-many", TTL)).orElseThrow();
    assertThatThrownBy(
            () ->
                provider.renewAll(
                    Collections.nCopies(
                        LockProvider.MAX_RENEWALS_PER_CALL + 1, new RenewalRequest(grant, TTL))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("513");
    assertThat(provider.renewAll(List.of())).isEmpty();
  }
}
