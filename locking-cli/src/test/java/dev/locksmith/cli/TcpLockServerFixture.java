package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.LockServer;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A lock server of each test's own on 127.0.0.1, and a provider onto it for the test's own holds
 * ("another host"). Registered with {@code @RegisterExtension}.
 */
final class TcpLockServerFixture implements BeforeEachCallback, AfterEachCallback {
  private @Nullable LockServer server;
  private @Nullable String url;
  private @Nullable LockProvider other;

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    server = LockServer.builder().port(0).build();
    url = "tcp://127.0.0.1:" + server.start();
    other = LockProviders.create(url);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (other != null) {
      other.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** The server, for tests that stop it under a running command. */
  LockServer server() {
    if (server == null) {
      throw new IllegalStateException("no test is running");
    }
    return server;
  }

  /** The server's provider URL. */
  String url() {
    if (url == null) {
      throw new IllegalStateException("no test is running");
    }
    return url;
  }

  /** A provider onto the server that is not the command's. */
  LockProvider other() {
    if (other == null) {
      throw new IllegalStateException("no test is running");
    }
    return other;
  }

  /** Takes {@code lockId} through {@link #other()} for 30 s, as another host; it must be free. */
  LeaseGrant holdElsewhere(String lockId) {
    return other().tryAcquire(LockRequest.of(lockId, Duration.ofSeconds(30))).orElseThrow();
  }

  /** Asserts that {@code lockId} is free: {@link #other()} takes it at once (for 1 s). */
  void assertFree(String lockId) {
    assertThat(other().tryAcquire(LockRequest.of(lockId, Duration.ofSeconds(1))))
        .as("%s is free", lockId)
        .isPresent();
  }
}
