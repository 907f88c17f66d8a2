package dev.locksmith.redis;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.testkit.LockProviderContract;

/** The test kit's conformance suite against the shared test Redis. */
class RedisConformanceTest extends LockProviderContract {
  private final String url = RedisTests.sharedUrl();

  @Override
  protected LockProvider newProvider() {
    return LockProviders.create(url);
  }
}
