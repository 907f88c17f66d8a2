package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.internal.AnnotatedMethods;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;

/** Which method's annotation governs a method: its own, else the nearest overridden one. */
class AnnotationSourceTest {
  @Retention(RetentionPolicy.RUNTIME)
  @DistributedLock(ttl = "1m")
  @interface Nightly {}

  interface Payments {
    @DistributedLock
    void pay(long cents);
  }

  static class Base {
    @Nightly
    void run() {}
  }

  static class Card implements Payments {
    @Override
    public void pay(long cents) {}
  }

  static class Job extends Base {
    @Override
    void run() {}

    @Nightly
    void own() {}

    void plain() {}
  }

  @Test
  void aMethodsOwnAnnotationOrMetaAnnotationIsItsSource() throws Exception {
    Method own = Job.class.getDeclaredMethod("own");
    assertThat(AnnotatedMethods.sourceOf(own)).contains(own);
  }

  @Test
  void anImplementationInheritsFromTheInterfaceMethod() throws Exception {
    assertThat(AnnotatedMethods.sourceOf(Card.class.getMethod("pay", long.class)))
        .contains(Payments.class.getMethod("pay", long.class));
  }

  @Test
  void anOverrideInheritsFromTheSuperclassMethod() throws Exception {
    assertThat(AnnotatedMethods.sourceOf(Job.class.getDeclaredMethod("run")))
        .contains(Base.class.getDeclaredMethod("run"));
    assertThat(AnnotatedMethods.annotationOf(Job.class.getDeclaredMethod("run")))
        .hasValueSatisfying(lock -> assertThat(lock.ttl()).isEqualTo("1m"));
  }

  @Test
  void aMethodWithoutAnyHasNone() throws Exception {
    assertThat(AnnotatedMethods.sourceOf(Job.class.getDeclaredMethod("plain"))).isEmpty();
  }
}
