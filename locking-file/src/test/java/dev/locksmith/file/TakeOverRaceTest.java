package dev.locksmith.file;

import static dev.locksmith.file.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.spi.LeaseGrant;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Eight contenders, each with its own provider (as eight hosts would have), race to take over one
 * stale lock, 1,000 times: exactly one wins every round, and the winner's lock file is never
 * removed by a loser.
 */
class TakeOverRaceTest {
  private static final int RACERS = 8;
  private static final int ROUNDS = 1_000;
  private static final Duration TTL = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void exactlyOneOfEightStealersWinsEachOfAThousandRounds() throws Exception {
    List<FileLockProvider> providers = new ArrayList<>();
    for (int i = 0; i < RACERS; i++) {
      providers.add(TestProviders.open(dir, "skew=0ms&watch=false"));
    }
    Path lock = LockFileNames.of(dir, "race").lock();
    CyclicBarrier start = new CyclicBarrier(RACERS);
    ExecutorService pool = Executors.newFixedThreadPool(RACERS);
    try {
      long lastToken = 0;
      for (int round = 0; round < ROUNDS; round++) {
        long staleToken = lastToken + 1;
        Files.write(lock, staleRecord(staleToken).encode());
        List<Future<Optional<LeaseGrant>>> results = new ArrayList<>();
        for (FileLockProvider provider : providers) {
          results.add(
              pool.submit(
                  () -> {
                    start.await(10, TimeUnit.SECONDS);
                    return provider.tryAcquire(request("race", TTL));
                  }));
        }
        List<LeaseGrant> winners = new ArrayList<>();
        int winnerIndex = -1;
        for (int i = 0; i < RACERS; i++) {
          Optional<LeaseGrant> result = results.get(i).get(30, TimeUnit.SECONDS);
          if (result.isPresent()) {
            winners.add(result.get());
            winnerIndex = i;
          }
        }
        assertThat(winners).as("winners in round %d", round).hasSize(1);
        LeaseGrant winner = winners.get(0);
        assertThat(winner.fencingToken()).isGreaterThan(staleToken);
        LockRecord onDisk = LockRecord.decode(Files.readAllBytes(lock));
        assertThat(onDisk.ownerToken()).as("round %d", round).isEqualTo(winner.ownerToken());
        assertThat(providers.get(winnerIndex).renew(winner, TTL)).isPresent();
        lastToken = winner.fencingToken();
        // Leave the winner's file for the next round to overwrite with a stale record.
      }
      try (Stream<Path> left = Files.list(dir)) {
        assertThat(left.map(p -> p.getFileName().toString()))
            .as("no claims, tombs or temporary files left behind")
            .allMatch(n -> n.endsWith(".lock") || n.endsWith(".fence"));
      }
    } finally {
      pool.shutdownNow();
      providers.forEach(FileLockProvider::close);
    }
  }

  private static LockRecord staleRecord(long token) {
    long now = System.currentTimeMillis();
    return new LockRecord(
        "race",
        "stale-" + token,
        token,
        now - 60_000,
        1_000,
        "dead/1/t",
        "dead",
        1,
        "t",
        now - 61_000);
  }
}
