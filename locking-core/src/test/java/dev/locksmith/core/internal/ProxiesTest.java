package dev.locksmith.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.internal.other.OtherPackageJobs;
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

  /** A subclass in this package of a class of another package. */
  static class FromAnotherPackage extends OtherPackageJobs {}

  @Test
  void aPackagePrivateMethodOfASuperclassInAnotherPackageCannotBeIntercepted() throws Exception {
    Method packagePrivate = method(OtherPackageJobs.class, "packagePrivate");

    assertThat(Proxies.whyNot(FromAnotherPackage.class, packagePrivate))
        .isEqualTo(
            "package-private in "
                + OtherPackageJobs.class.getName()
                + ", of another package than "
                + FromAnotherPackage.class.getName());
    assertThat(Proxies.canIntercept(OtherPackageJobs.class, packagePrivate)).isTrue();
    assertThat(Proxies.notInterceptable(FromAnotherPackage.class)).containsExactly(packagePrivate);
    assertThat(Proxies.whyNot(Jobs.class, method(Base.class, "sealed"))).isEqualTo("final");
  }

  private static Method method(Class<?> type, String name) throws NoSuchMethodException {
    return type.getDeclaredMethod(name);
  }
}
