package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.ProviderUrl;
import dev.locksmith.testkit.LoopbackPorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.redisson.config.Config;
import org.redisson.config.SingleServerConfig;

class RedisUrlTest {

  private static RedisUrl parse(String url) {
    return RedisUrl.parse(ProviderUrl.parse(url));
  }

  private static SingleServerConfig server(Config config) throws IOException {
    // Read back through YAML: the public view of what Redisson will use.
    return Config.fromYAML(config.toYAML()).useSingleServer();
  }

  @Test
  void aFullServerUrlSetsEveryPart() throws IOException {
    RedisUrl url =
        parse(
            "rediss://app:s%40cret@cache.example:6390/3?prefix=orders&timeout=500ms"
                + "&connect-timeout=2s&retry-attempts=0&retry-interval=100ms&client-name=svc");
    assertThat(url.options().prefix()).isEqualTo("orders");
    String yaml = url.config().toYAML();
    assertThat(yaml)
        .contains("address: \"rediss://cache.example:6390\"")
        .contains("database: 3")
        .contains("timeout: 500")
        .contains("connectTimeout: 2000")
        .contains("retryAttempts: 0")
        .contains("username: \"app\"")
        .contains("password: \"s@cret\"")
        .contains("clientName: \"svc\"");
  }

  @Test
  void anEncodedColonInTheUserNameIsPartOfTheName() throws IOException {
    // The decoded user info was split at its first ':', so user 'us:er' logged in as 'us' with
    // the password 'er:pw'.
    String yaml = parse("redis://us%3Aer:p%3Aw@localhost").config().toYAML();
    assertThat(yaml).contains("username: \"us:er\"").contains("password: \"p:w\"");
  }

  @Test
  void defaultsArePort6379DatabaseZeroAndPrefixLocksmith() throws IOException {
    RedisUrl url = parse("redis://localhost");
    assertThat(url.options()).isEqualTo(RedisLockOptions.defaults());
    assertThat(url.config().toYAML())
        .contains("address: \"redis://localhost:6379\"")
        .contains("database: 0");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      textBlock =
          """
          redis://localhost/x                 | path '/x'                        | database number
          redis://localhost?tiemout=1s        | unknown parameter 'tiemout'      | timeout
          redis://localhost?timeout=soon      | parameter 'timeout'              | 'soon' is not a duration
          redis://localhost?timeout=0s        | parameter 'timeout' is 0s        |
          redis://localhost?connect-timeout=PT0.0005S | parameter 'connect-timeout' | under a millisecond
          redis://localhost?retry-attempts=-1 | parameter 'retry-attempts' is -1 |
          redis://localhost?retry-attempts=2147483647 | parameter 'retry-attempts' is 2147483647 | expected 0 to 100
          redis://localhost?client-name=my%20app | parameter 'client-name' is 'my app' | spaces
          redis://localhost?client-name=a%0Ab | parameter 'client-name'    | spaces
          redis://localhost?timeout=30d       | parameter 'timeout' is 30d       | at most 24d
          redis://localhost?pool-size=0       | parameter 'pool-size' is 0       | at least 1
          redis://:pa/ss@localhost:6379       | percent-encode                   | redis://:****@localhost
          redis://localhost?prefix=a%7Bb%7D   | parameter 'prefix'               | hash tag
          redis://localhost:99999             | port                             |
          redis:localhost                     | redis://HOST:PORT                |
          """)
  void badPartsAreNamed(String url, String part, @Nullable String detail) {
    var refusal =
        assertThatThrownBy(() -> parse(url))
            .isInstanceOf(LockConfigurationException.class)
            .hasMessageContaining(part);
    if (detail != null) {
      refusal.hasMessageContaining(detail);
    }
  }

  @Test
  void passwordsNeverAppearInMessages() {
    assertThatThrownBy(() -> parse("redis://user:hunter2@localhost/x"))
        .hasMessageContaining("user:****@localhost")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void aYamlFileConfiguresClusterOrSentinel(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("redisson.yaml");
    Files.writeString(
        file,
        """
        clusterServersConfig:
          nodeAddresses:
          - "redis://10.0.0.1:7000"
          - "redis://10.0.0.2:7000"
        """);
    RedisUrl byPath = parse("redis://" + file.toUri().getPath() + "?prefix=app");
    assertThat(byPath.config().isClusterConfig()).isTrue();
    assertThat(byPath.options().prefix()).isEqualTo("app");
    RedisUrl byParameter = parse("redis:///?config=" + file);
    assertThat(byParameter.config().isClusterConfig()).isTrue();
  }

  @Test
  void yamlMistakesAreNamed(@TempDir Path dir) throws IOException {
    assertThatThrownBy(() -> parse("redis:///nowhere/redisson.yaml"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("'/nowhere/redisson.yaml' in its path; no such file");
    assertThatThrownBy(() -> parse("redis:///"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("no host");
    Path broken = Files.writeString(dir.resolve("broken.yaml"), "clusterServersConfig: [oops\n");
    assertThatThrownBy(() -> parse("redis:///?config=" + broken))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("parameter 'config'")
        .hasMessageContaining("Redisson cannot read");
    // Redisson's own error came at the first call, about a master/slave setup never written.
    Path serverless = Files.writeString(dir.resolve("threads.yaml"), "threads: 16\n");
    assertThatThrownBy(() -> parse("redis://" + serverless))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("'" + serverless + "'")
        .hasMessageContaining("names no server");
    Path good = Files.writeString(dir.resolve("ok.yaml"), "singleServerConfig: {}\n");
    // rediss:// with a file took the file's plain redis:// addresses, without TLS or a word.
    assertThatThrownBy(() -> parse("rediss://" + good))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("rediss://")
        .hasMessageContaining("in the file");
    assertThatThrownBy(() -> parse("redis://" + good + "?client-name=x"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("unknown parameter 'client-name'");
  }

  @Test
  void allowEvictionIsOffByDefaultAndTakenInBothForms(@TempDir Path dir) throws IOException {
    assertThat(parse("redis://localhost").options().allowEviction()).isFalse();
    assertThat(parse("redis://localhost?allow-eviction=true").options())
        .isEqualTo(RedisLockOptions.defaults().withAllowEviction(true));
    assertThat(parse("redis://localhost?prefix=p&allow-eviction=false").options())
        .isEqualTo(new RedisLockOptions("p"));
    Path yaml = Files.writeString(dir.resolve("ok.yaml"), "singleServerConfig: {}\n");
    assertThat(parse("redis://" + yaml + "?allow-eviction=true").options().allowEviction())
        .isTrue();
    assertThatThrownBy(() -> parse("redis://localhost?allow-eviction=maybe"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("parameter 'allow-eviction' is not true or false");
  }

  @Test
  void anUnreachableServerIsNotNeededToCreateAProviderAndItsCallsNameTheUrl() throws IOException {
    int port = LoopbackPorts.free();
    String url = "redis://:secret@127.0.0.1:" + port + "?" + RedisTests.FAST;
    try (LockProvider provider = LockProviders.create(url)) {
      assertThatThrownBy(() -> provider.status("x"))
          .isInstanceOf(LockProviderException.class)
          .hasMessageStartingWith("Redis redis://:****@127.0.0.1:" + port + "?timeout=1s")
          .hasMessageEndingWith(
              " failed to read the status of lock 'x': 127.0.0.1:"
                  + port
                  + " unreachable: connection refused")
          .hasMessageNotContaining("secret");
    }
  }

  @Test
  void defaultsSuitALockAndTheClientConnectsLazily(@TempDir Path dir) throws IOException {
    Config config = parse("redis://localhost").config();
    assertThat(config.isLazyInitialization()).isTrue();
    assertThat(config.toYAML())
        .contains("timeout: 800")
        .contains("subscriptionTimeout: 800")
        .contains("connectTimeout: 2000")
        .contains("retryAttempts: 1");
    assertThat(parse("redis://localhost?timeout=2s").config().toYAML())
        .contains("subscriptionTimeout: 2000");
    assertThat(RedisUrl.DEFAULT_WORST_CASE).isEqualTo(java.time.Duration.ofSeconds(2));
    Path yaml = Files.writeString(dir.resolve("ok.yaml"), "singleServerConfig: {}\n");
    assertThat(parse("redis://" + yaml).config().isLazyInitialization()).isTrue();
  }
}
