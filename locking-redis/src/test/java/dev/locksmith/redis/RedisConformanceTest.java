package dev.locksmith.redis;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.testkit.FaultProxy;
import dev.locksmith.testkit.FaultyPath;
import dev.locksmith.testkit.LockProviderContract;
import java.net.URI;

/** The test kit's conformance suite against the shared test Redis, faults through a proxy. */
class RedisConformanceTest extends LockProviderContract {
  private final String url = RedisTests.sharedUrl();

  @Override
  protected LockProvider newProvider() {
    return LockProviders.create(url);
  }

  @Override
  protected FaultyPath newFaultyClient() throws Exception {
    URI server = URI.create(url);
    FaultProxy proxy = FaultProxy.start(server.getHost(), server.getPort());
    String query = server.getRawQuery() == null ? "" : "?" + server.getRawQuery();
    return FaultyPath.through(
        proxy, LockProviders.create("redis://127.0.0.1:" + proxy.port() + query));
  }
}
