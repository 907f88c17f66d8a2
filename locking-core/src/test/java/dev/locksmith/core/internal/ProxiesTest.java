package dev.locksmith.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.DistributedLock;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;

/** The one rule of what a proxy can intercept. */
class ProxiesTest {

  static class Base {
    @DistributedLock
    final void sealed() {}

    @DistributedLock
    protected void inherited() {}
  }

  static class Jobs extends Base {
    @DistributedLock
    public void open() {}

    @DistributedLock
    void packagePrivate() {}

    @DistributedLock
    private void hidden() {}

    @DistributedLock
    static void shared() {}

    public final void notAnnotated() {}
  }

  @Test
  void privateStaticAndFinalMethodsCannotBeIntercepted() throws Exception {
    assertThat(Proxies.canIntercept(method(Jobs.class, "open"))).isTrue();
    assertThat(Proxies.canIntercept(method(Jobs.class, "packagePrivate"))).isTrue();
    assertThat(Proxies.canIntercept(method(Base.class, "inherited"))).isTrue();
    assertThat(Proxies.canIntercept(method(Jobs.class, "hidden"))).isFalse();
    assertThat(Proxies.canIntercept(method(Jobs.class, "shared"))).isFalse();
    assertThat(Proxies.canIntercept(method(Base.class, "sealed"))).isFalse();
  }

  @Test
  void notInterceptableListsTheAnnotatedMethodsOfTheClassAndItsSuperclasses() throws Exception {
    assertThat(Proxies.notInterceptable(Jobs.class))
        .containsExactlyInAnyOrder(
            method(Jobs.class, "hidden"),
            method(Jobs.class, "shared"),
            method(Base.class, "sealed"));
    assertThat(Proxies.notInterceptable(Base.class)).containsExactly(method(Base.class, "sealed"));
  }

  private static Method method(Class<?> type, String name) throws NoSuchMethodException {
    return type.getDeclaredMethod(name);
  }
}
