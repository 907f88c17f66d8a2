package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.ProviderUrl;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code zk:} URLs: their parts, their errors, and creation without a reachable ensemble. */
class ZkUrlTest {

  private static ZkUrl parse(String url) {
    return ZkUrl.parse(ProviderUrl.parse(url));
  }

  @Test
  void partsAndDefaults() {
    ZkUrl url =
        parse(
            "zk://127.0.0.1:2181,127.0.0.2,localhost:2182/apps/locks?sessionTimeout=5s"
                + "&connectionTimeout=1s&timeout=500ms&digest=app:secret");
    assertThat(url.connectString()).isEqualTo("127.0.0.1:2181,127.0.0.2:2181,localhost:2182");
    assertThat(url.basePath()).isEqualTo("/apps/locks");
    assertThat(url.sessionTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(url.connectionTimeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(url.timeout()).isEqualTo(Duration.ofMillis(500));
    assertThat(url.digest()).isEqualTo("app:secret");
    assertThat(url.describe()).doesNotContain("secret");

    ZkUrl plain = parse("zk://127.0.0.1");
    assertThat(plain.basePath()).isEqualTo("/locksmith");
    assertThat(plain.sessionTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(plain.timeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(plain.digest()).isNull();
  }

  @Test
  void wrongPartsAreNamed() {
    assertThatThrownBy(() -> parse("zk://127.0.0.1?ttl=1s"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("unknown parameter 'ttl'");
    assertThatThrownBy(() -> parse("zk://127.0.0.1:99999"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("port 99999");
    assertThatThrownBy(() -> parse("zk://127.0.0.1:x")).hasMessageContaining("invalid port 'x'");
    assertThatThrownBy(() -> parse("zk://127.0.0.1,,127.0.0.2")).hasMessageContaining("empty host");
    assertThatThrownBy(() -> parse("zk://127.0.0.1?sessionTimeout=100ms"))
        .hasMessageContaining("'sessionTimeout' must be between");
    assertThatThrownBy(() -> parse("zk://127.0.0.1?timeout=1h"))
        .hasMessageContaining("'timeout' must be between");
    assertThatThrownBy(() -> parse("zk://127.0.0.1?digest=nopassword"))
        .hasMessageContaining("'digest' must be user:password");
    assertThatThrownBy(() -> parse("zk://user:pw@127.0.0.1"))
        .hasMessageContaining("digest=user:password")
        .message()
        .doesNotContain(":pw@");
    assertThatThrownBy(() -> parse("zk:///locks")).hasMessageContaining("has no hosts");
  }

  @Test
  void createdWithoutAnEnsembleItsCallsFailWithinTheTimeout() {
    try (LockProvider provider =
        LockProviders.create("zk://127.0.0.1:1/x?timeout=300ms&connectionTimeout=200ms")) {
      assertThat(provider).isInstanceOf(ZkLockProvider.class);
      long start = System.nanoTime();
      assertThatThrownBy(() -> provider.tryAcquire(LockRequest.of("down", Duration.ofSeconds(5))))
          .isInstanceOf(LockProviderException.class)
          .hasMessageContaining("acquire of lock 'down' failed");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    }
  }

  @Test
  void builderRejectsABadBasePath() {
    assertThatThrownBy(
            () ->
                ZkLockProvider.builder(
                        org.apache.curator.framework.CuratorFrameworkFactory.newClient(
                            "127.0.0.1:1", new org.apache.curator.retry.RetryOneTime(1)))
                    .basePath("no-slash"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("basePath 'no-slash'");
  }
}
