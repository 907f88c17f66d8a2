package dev.locksmith.benchmarks.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.benchmarks.latency.Contender;
import dev.locksmith.benchmarks.latency.LatencyLoops;
import dev.locksmith.benchmarks.load.Percentiles;
import dev.locksmith.testkit.zookeeper.TestZooKeeper;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The ZooKeeper comparison's loops on a real ZooKeeper server on 127.0.0.1. */
class ZkLatenciesTest {
  private static TestingServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = TestZooKeeper.start();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"locksmith", "curator"})
  void handOffsBetweenTwoClientsNeverOverlapAndAreAllCounted(String system) throws Exception {
    try (Contender a = ZkContenders.open(system, server.getConnectString());
        Contender b = ZkContenders.open(system, server.getConnectString())) {
      LatencyLoops.Run run = LatencyLoops.handOff(a, b, 2, 10, Duration.ofSeconds(20));
      assertThat(run.overlaps()).isZero();
      assertThat(run.percentiles().count()).isEqualTo(10);
      assertThat(run.percentiles().p50()).isPositive();
    }
  }

  @Test
  void interleavedRoundsGiveEverySystemItsPairs() throws Exception {
    Map<String, Contender> contenders = new LinkedHashMap<>();
    try {
      for (String system : new String[] {"raw", "locksmith", "curator"}) {
        contenders.put(system, ZkContenders.open(system, server.getConnectString()));
      }
      Map<String, Percentiles> figures =
          LatencyLoops.interleaved(contenders, 2, 3, 5, Duration.ofSeconds(20));
      assertThat(figures).containsOnlyKeys("raw", "locksmith", "curator");
      assertThat(figures.values()).allSatisfy(p -> assertThat(p.count()).isEqualTo(15));
    } finally {
      contenders.values().forEach(Contender::close);
    }
  }

  @Test
  void theRawBaselineTakesAFreeNodeOnlyOnceAndCannotWait() throws Exception {
    try (Contender a = ZkContenders.open("raw", server.getConnectString());
        Contender b = ZkContenders.open("raw", server.getConnectString())) {
      assertThat(a.tryLock("once")).isTrue();
      assertThat(b.tryLock("once")).isFalse();
      a.unlock();
      assertThat(b.tryLock("once")).isTrue();
      b.unlock();
      assertThatThrownBy(() -> a.lock("once", Duration.ofSeconds(1)))
          .isInstanceOf(UnsupportedOperationException.class);
    }
    assertThatThrownBy(() -> ZkContenders.open("etcd", server.getConnectString()))
        .hasMessageContaining("unknown system 'etcd'");
  }
}
