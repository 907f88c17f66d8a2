package dev.locksmith.zookeeper;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.testkit.BasicLeaseContract;
import dev.locksmith.testkit.FaultContract;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.FaultyPath;
import dev.locksmith.testkit.FencingContract;
import dev.locksmith.testkit.LockProviderContract;
import dev.locksmith.testkit.RenewalContract;
import dev.locksmith.testkit.SeveralLocksContract;
import dev.locksmith.testkit.ShortTtlContract;
import dev.locksmith.testkit.TestResource;
import dev.locksmith.testkit.WaitingContract;
import dev.locksmith.testkit.zookeeper.TestZooKeeper;
import java.nio.file.Files;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The test kit's conformance suite on a real ZooKeeper server ({@code curator-test}'s {@link
 * TestingServer}), every client through a {@code zk:} URL; the fault cases put a {@link FaultProxy}
 * between a client and the server.get(). Fencing tokens across restarts are in {@link
 * ZkRestartTest}: the store-lifecycle contract's lost-state case does not hold for ZooKeeper (see
 * the README).
 */
class ZkConformanceTest extends LockProviderContract
    implements BasicLeaseContract,
        WaitingContract,
        RenewalContract,
        FencingContract,
        FaultContract,
        ShortTtlContract,
        SeveralLocksContract {
  @RegisterExtension
  static final TestResource<TestingServer> server =
      new TestResource<>(() -> TestZooKeeper.start(Files.createTempDirectory("locksmith-zk")));

  @Override
  protected LockProvider newProvider() {
    return LockProviders.create(
        ZkTestServers.url(server.get().getConnectString(), "conformance", ""));
  }

  @Override
  protected FaultyPath newFaultyClient() throws Exception {
    FaultProxy proxy = FaultProxy.start("127.0.0.1", server.get().getPort());
    return FaultyPath.through(
        proxy,
        ZkLockProvider.create(ZkTestServers.url("127.0.0.1:" + proxy.port(), "conformance", "")));
  }
}
