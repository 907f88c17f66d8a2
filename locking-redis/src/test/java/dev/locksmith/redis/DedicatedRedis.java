package dev.locksmith.redis;

import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class's own Redis server, so that its {@code INFO commandstats} counts that class's
 * commands only, and two providers on it. Registered as a static {@code @RegisterExtension} field:
 * started before the class's first test, closed (providers first) after its last.
 */
final class DedicatedRedis implements BeforeAllCallback, AfterAllCallback {
  private final String firstQuery;
  private final String secondQuery;
  private @Nullable RedisServerProcess server;
  private final List<RedisLockProvider> providers = new ArrayList<>();

  /**
   * A server whose {@link #first()} and {@link #second()} provider use the URL query {@code
   * firstQuery} and {@code secondQuery} (such as {@code prefix=p&pool-size=8}).
   */
  DedicatedRedis(String firstQuery, String secondQuery) {
    this.firstQuery = firstQuery;
    this.secondQuery = secondQuery;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    RedisServerProcess started = TestRedis.startDedicated();
    server = started;
    providers.add(RedisLockProvider.create(started.url() + "?" + firstQuery));
    providers.add(RedisLockProvider.create(started.url() + "?" + secondQuery));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    providers.forEach(RedisLockProvider::close);
    providers.clear();
    server().close();
    server = null;
  }

  /** The server. */
  RedisServerProcess server() {
    return Objects.requireNonNull(server, "not started");
  }

  /** The provider with the first query. */
  RedisLockProvider first() {
    return providers.get(0);
  }

  /** The provider with the second query. */
  RedisLockProvider second() {
    return providers.get(1);
  }

  /** {@code EVAL} and {@code EVALSHA} calls so far, from {@code INFO commandstats}. */
  long scriptRuns() throws Exception {
    return RedisTests.scriptRuns(server().call("INFO", "commandstats"));
  }

  /** {@code PUBLISH} calls so far, scripts' included, from {@code INFO commandstats}. */
  long publishes() throws Exception {
    return RedisTests.calls(server().call("INFO", "commandstats"), "publish");
  }
}
