package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.DistributedLock;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.annotation.Requires;
import io.micronaut.test.annotation.MockBean;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.junit.jupiter.api.Test;

/**
 * A test's {@code @MockBean} of a locked class replaces its bean: the mock, made by a factory
 * method and never intercepted, does not stop the context as a factory-made copy of a locked bean
 * does.
 */
@MicronautTest(environments = "mocked")
@Property(name = "locksmith.url", value = "mem:")
class MockedLockedBeanTest {
  @Inject Invoicing invoicing;

  @Test
  void theContextStartsWithTheMockInPlaceOfTheLockedBean() {
    assertThat(invoicing.run()).isEqualTo("mocked");
  }

  @MockBean(Invoicing.class)
  Invoicing mockInvoicing() {
    return new Invoicing() {
      @Override
      String run() {
        return "mocked";
      }
    };
  }

  /** A locked bean that the test mocks. */
  @Singleton
  @Requires(env = "mocked")
  static class Invoicing {
    @DistributedLock
    String run() {
      return "real";
    }
  }
}
