package dev.locksmith.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.memory.MemoryLockProvider;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SchemeProviderFactoryTest {
  static final class Made extends SchemeProviderFactory {
    Made(String... schemes) {
      super(url -> MemoryLockProvider.isolated(), schemes);
    }
  }

  @Test
  void servesItsSchemesAndMakesEachProviderWithItsFunction() {
    List<ProviderUrl> asked = new ArrayList<>();
    SchemeProviderFactory factory =
        new SchemeProviderFactory(
            url -> {
              asked.add(url);
              return MemoryLockProvider.isolated();
            },
            "one",
            "two") {};
    ProviderUrl url = ProviderUrl.parse("two:store");

    try (LockProvider provider = factory.create(url)) {
      assertThat(provider).isNotNull();
    }

    assertThat(factory.schemes()).containsExactlyInAnyOrder("one", "two");
    assertThat(asked).containsExactly(url);
  }

  @Test
  void aFactoryWithoutSchemesIsRefused() {
    assertThatThrownBy(Made::new)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one scheme");
  }

  @Test
  void aSchemeNamedTwiceIsRefused() {
    assertThatThrownBy(() -> new Made("one", "one")).isInstanceOf(IllegalArgumentException.class);
  }
}
