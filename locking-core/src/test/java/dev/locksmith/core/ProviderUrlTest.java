package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.ProviderUrl;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProviderUrlTest {

  @Test
  void parsesHostPortPathAndParameters() {
    ProviderUrl url = ProviderUrl.parse("tcp://lockhost:7421/x?secret-file=%2Fetc%2Fs&tls=true");
    assertThat(url.scheme()).isEqualTo("tcp");
    assertThat(url.host()).isEqualTo("lockhost");
    assertThat(url.port(7420)).isEqualTo(7421);
    assertThat(url.path()).isEqualTo("/x");
    assertThat(url.parameter("secret-file")).isEqualTo("/etc/s");
    assertThat(url.booleanParameter("tls", false)).isTrue();
    assertThat(ProviderUrl.parse("tcp://h").port(7420)).isEqualTo(7420);
  }

  @Test
  void aPortThatIsNotANumberIsNamedNotTheHost() {
    assertThatThrownBy(() -> ProviderUrl.parse("tcp://127.0.0.1:notaport").host())
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("has an invalid host or port in '127.0.0.1:notaport'")
        .hasMessageContaining("expected tcp://HOST:PORT");
    assertThatThrownBy(() -> ProviderUrl.parse("tcp:///locks").host())
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("has no host; expected tcp://HOST:PORT");
    assertThatThrownBy(() -> ProviderUrl.parse("tcp://:7420").host())
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("has no host; expected tcp://HOST:PORT");
  }

  @Test
  void aPortOutsideOneTo65535IsRefusedWhenRead() {
    assertThatThrownBy(() -> ProviderUrl.parse("tcp://127.0.0.1:99999").port(7420))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("has port 99999; expected 1 to 65535");
    assertThatThrownBy(() -> ProviderUrl.parse("tcp://127.0.0.1:0").port(7420))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("has port 0; expected 1 to 65535");
    assertThat(ProviderUrl.parse("tcp://127.0.0.1:65535").port(7420)).isEqualTo(65535);
  }

  @Test
  void aBadHostIsNamedWithoutThePasswordBesideIt() {
    assertThatThrownBy(() -> ProviderUrl.parse("redis://:s3cret@redis_cache:6379").host())
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("has an invalid host or port in 'redis_cache:6379'")
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> ProviderUrl.parse("tcp://u:pw@bad_host:7420").host())
        .hasMessageContaining("'bad_host:7420'")
        .hasMessageNotContaining("pw");
  }

  @Test
  void aPasswordWithAnUnencodedSlashQuestionMarkOrAtIsNeverShownAndIsNamedAsTheFault() {
    // Unencoded, these end the authority early (or add an '@'): the password was shown whole or
    // in part, as a host, a port or a parameter's name.
    for (String url :
        new String[] {
          "redis://:pa/ss@localhost:6379",
          "redis://user:pa/ss@localhost:6379/0",
          "redis://:se?cret@localhost:6379",
          "redis://:p@ss@localhost:6379",
          "redis://user:pa#ss@localhost:6379"
        }) {
      assertThatThrownBy(() -> ProviderUrl.parse(url).host())
          .as(url)
          .isInstanceOf(LockConfigurationException.class)
          .hasMessageContaining("percent-encode")
          .satisfies(
              e ->
                  assertThat(e.getMessage())
                      .doesNotContain("pa/ss", "'pa", ":pa", "cret", "p@ss", "@ss", "pa#ss"));
    }
    assertThat(ProviderUrl.redact("redis://:p@ss@localhost:6379"))
        .isEqualTo("redis://:****@localhost:6379");
    assertThat(ProviderUrl.redact("redis://:pa/ss@localhost:6379"))
        .isEqualTo("redis://:****@localhost:6379");
    // A port and an '@' in a parameter are no password.
    assertThat(ProviderUrl.parse("redis://localhost:6379?client-name=a@b").host())
        .isEqualTo("localhost");
    assertThat(ProviderUrl.parse("redis://:s%2Fx%40y@localhost:6379").host())
        .isEqualTo("localhost");
  }

  @Test
  void emptyUrlSaysWhatIsExpected() {
    assertThatThrownBy(() -> ProviderUrl.parse("  "))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("Provider URL is empty")
        .hasMessageContaining("tcp://host:7420");
  }

  @Test
  void urlWithoutSchemeIsNamed() {
    assertThatThrownBy(() -> ProviderUrl.parse("/mnt/locks"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("'/mnt/locks' has no scheme");
  }

  @Test
  void malformedUrlGivesTheIndex() {
    String text = "tcp://host:74 20";
    // Which index java.net.URI reports moved between JDKs (17: where the authority starts, 6; 25:
    // the space, 13): the message carries the parser's index and reason, pointing into the
    // authority, whichever JDK runs.
    Throwable thrown = catchThrowable(() -> ProviderUrl.parse(text));
    assertThat(thrown).isInstanceOf(LockConfigurationException.class);
    assertThat(thrown.getCause()).isInstanceOf(URISyntaxException.class);
    URISyntaxException cause = (URISyntaxException) thrown.getCause();
    assertThat(cause.getIndex()).isBetween(text.indexOf("host"), text.indexOf(' '));
    assertThat(thrown)
        .hasMessage(
            "Provider URL '"
                + text
                + "' is malformed at index "
                + cause.getIndex()
                + ": "
                + cause.getReason());
  }

  @Test
  void aUrlThatFailsToParseShowsItsSecretsMasked() {
    Throwable malformed = catchThrowable(() -> ProviderUrl.parse("redis://:p^ss@cache:6379"));
    assertThat(malformed)
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("'redis://:****@cache:6379' is malformed at index");
    assertThat(malformed.getCause()).hasMessageNotContaining("p^ss");

    assertThatThrownBy(() -> ProviderUrl.parse("//cache:6379?Password=s3cret"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> ProviderUrl.parse("/srv/locks?password=a b"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("password=****")
        .hasMessageNotContaining("a b");
  }

  @Test
  void bracesInAParameterValueReachTheProvider() {
    ProviderUrl url = ProviderUrl.parse("redis://127.0.0.1:6379?prefix=a{b}");

    assertThat(url.parameters()).containsEntry("prefix", "a{b}");
    assertThat(url.text()).isEqualTo("redis://127.0.0.1:6379?prefix=a{b}");
    assertThat(url.uri().getPort()).isEqualTo(6379);
  }

  @Test
  void unknownSchemeListsTheKnownOnes() {
    assertThatThrownBy(() -> LockProviders.create("zookeeper://zk:2181"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("unknown scheme 'zookeeper'")
        .hasMessageContaining("known schemes: [mem");
  }

  @Test
  void unknownParameterListsTheAllowedOnes() {
    assertThatThrownBy(
            () -> ProviderUrl.parse("file:///tmp?skw=2s").requireOnly(Set.of("skew", "mode")))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessage(
            "Provider URL 'file:///tmp?skw=****' has unknown parameter 'skw'; allowed: [mode,"
                + " skew]");
    assertThatThrownBy(
            () ->
                ProviderUrl.parse("tcp://localhost:7420?pasword=hunter2&tls=true")
                    .requireOnly(Set.of("secret", "tls")))
        .hasMessageStartingWith(
            "Provider URL 'tcp://localhost:7420?pasword=****&tls=true' has unknown parameter"
                + " 'pasword'")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void aHashInAValueIsRefusedInsteadOfCuttingTheValueShort() {
    // java.net.URI ended the query at '#': secret=abc#def was the secret 'abc'.
    for (String url :
        List.of(
            "tcp://localhost:7420?secret=abc#def",
            "zk://localhost:2181/locks?digest=app:s3cr#etLongPart",
            "mem:orders#typo",
            "file:///tmp/locks#x")) {
      assertThatThrownBy(() -> ProviderUrl.parse(url))
          .as(url)
          .isInstanceOf(LockConfigurationException.class)
          .hasMessageContaining("has a '#'")
          .hasMessageContaining("%23")
          .hasMessageNotContaining("def")
          .hasMessageNotContaining("etLongPart");
    }
    assertThat(ProviderUrl.parse("tcp://localhost:7420?secret=abc%23def").parameter("secret"))
        .isEqualTo("abc#def");
  }

  @Test
  void aPlusInAValueIsAPlusNotASpace() {
    // A base64 secret holds '+': read as a space, it was refused by the server at the first call.
    assertThat(ProviderUrl.parse("tcp://localhost:7420?secret=abc+def/gh=").parameter("secret"))
        .isEqualTo("abc+def/gh=");
    assertThat(ProviderUrl.parse("tcp://localhost:7420?secret=a%20b").parameter("secret"))
        .isEqualTo("a b");
  }

  @Test
  void aPasswordHoldingASpaceIsMaskedWhenTheUrlFailsToParse() {
    Throwable malformed =
        catchThrowable(() -> ProviderUrl.parse("redis://user:pa ss@localhost:6379"));
    assertThat(malformed).hasMessageContaining("redis://user:****@localhost:6379");
    assertThat(malformed).hasMessageNotContaining("pa ss");
    assertThat(malformed.getCause()).hasMessageNotContaining("pa ss");
  }

  @Test
  void typedParametersNameTheParameterAndValue() {
    ProviderUrl url = ProviderUrl.parse("tcp://h?timeout=3x&pool=many&tls=maybe");
    assertThatThrownBy(() -> url.durationParameter("timeout", Duration.ZERO))
        .hasMessageContaining("parameter 'timeout'")
        .hasMessageContaining("'3x' is not a duration");
    assertThatThrownBy(() -> url.intParameter("pool", 1))
        .hasMessageContaining("parameter 'pool' is not a whole number: 'many'");
    assertThatThrownBy(() -> url.booleanParameter("tls", false))
        .hasMessageContaining("parameter 'tls' is not true or false: 'maybe'");
  }

  @Test
  void duplicateParameterIsAnError() {
    assertThatThrownBy(() -> ProviderUrl.parse("tcp://h?tls=true&tls=false"))
        .hasMessageContaining("gives parameter 'tls' twice");
  }

  @Test
  void aZooKeeperDigestShowsItsUserNotItsPassword() {
    ProviderUrl url = ProviderUrl.parse("zk://zk1:2181/ops?digest=ops:s3cret&sessionTimeout=1h");
    assertThat(url.redacted()).isEqualTo("zk://zk1:2181/ops?digest=ops:****&sessionTimeout=1h");
    assertThatThrownBy(() -> url.requireOnly(Set.of("digest")))
        .hasMessageContaining("digest=ops:****")
        .hasMessageNotContaining("s3cret");
    assertThat(ProviderUrl.redact("zk://h/?DIGEST=u:p:w")).isEqualTo("zk://h/?DIGEST=u:****");
  }

  @Test
  void secretsAreRedactedInMessages() {
    ProviderUrl url = ProviderUrl.parse("redis://user:hunter2@h:6379?secret=abc&x=1");
    assertThat(url.redacted()).isEqualTo("redis://user:****@h:6379?secret=****&x=1");
    assertThatThrownBy(() -> url.requireOnly(Set.of("secret")))
        .hasMessageNotContaining("hunter2")
        .hasMessageNotContaining("abc");
  }

  @Test
  void memUrlsNameSharedStores() {
    assertThat(LockProviders.create("mem:").description()).isEqualTo("mem:");
    assertThat(LockProviders.create("mem:orders").description()).isEqualTo("mem:orders");
    assertThat(LockProviders.create("mem:orders")).isInstanceOf(MemoryLockProvider.class);
    assertThatThrownBy(() -> LockProviders.create("mem:a/b"))
        .hasMessageContaining("names store 'a/b'");
    assertThatThrownBy(() -> LockProviders.create("mem:?x=1"))
        .hasMessageContaining("this scheme takes no parameters");
  }
}
