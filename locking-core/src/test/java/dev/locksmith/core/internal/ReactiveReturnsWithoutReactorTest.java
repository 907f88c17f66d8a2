package dev.locksmith.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URL;
import java.net.URLClassLoader;
import org.junit.jupiter.api.Test;

/** Integrations ask ReactiveReturns on every call, so it must load and answer without Reactor. */
class ReactiveReturnsWithoutReactorTest {

  @Test
  void answersNoWhenReactorIsNotOnTheClassPath() throws Exception {
    URL coreClasses = ReactiveReturns.class.getProtectionDomain().getCodeSource().getLocation();
    try (URLClassLoader withoutReactor =
        new URLClassLoader(new URL[] {coreClasses}, ClassLoader.getPlatformClassLoader())) {
      assertThat(withoutReactor.getResource("reactor/core/publisher/Mono.class")).isNull();
      Class<?> returns = Class.forName(ReactiveReturns.class.getName(), true, withoutReactor);
      assertThat(returns.getClassLoader()).isSameAs(withoutReactor);

      assertThat(returns.getMethod("isReactorPresent").invoke(null)).isEqualTo(false);
      assertThat(returns.getMethod("isMonoOrFlux", Class.class).invoke(null, String.class))
          .isEqualTo(false);
      assertThatThrownBy(
              () ->
                  returns
                      .getMethod("hold", Class.class, java.util.function.Supplier.class)
                      .invoke(null, String.class, null))
          .hasCauseInstanceOf(IllegalArgumentException.class)
          .cause()
          .hasMessageContaining("java.lang.String is not a Reactor Mono or Flux");
    }
  }
}
