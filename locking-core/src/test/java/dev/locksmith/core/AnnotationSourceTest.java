package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.internal.AnnotatedMethods;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.reflect.Method;
import java.util.List;
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

  interface Handler<T> {
    @DistributedLock
    void handle(T item);
  }

  static class Orders implements Handler<String> {
    @Override
    public void handle(String order) {}

    /** An overload, which implements nothing. */
    public void handle(Integer order) {}
  }

  abstract static class Relay<U extends Number> implements Handler<List<U>> {}

  static class Counts extends Relay<Long> {
    @Override
    public void handle(List<Long> counts) {}
  }

  static class Step<T> {
    @DistributedLock
    void run(T input, T[] more) {}
  }

  static class Load extends Step<String> {
    @Override
    void run(String input, String[] more) {}

    void run(Integer input, Integer[] more) {}
  }

  @Test
  void anImplementationOfAGenericMethodInheritsItsAnnotation() throws Exception {
    // Its parameters are not the erased ones of the method it implements (a bridge links them).
    assertThat(AnnotatedMethods.sourceOf(Orders.class.getMethod("handle", String.class)))
        .contains(Handler.class.getMethod("handle", Object.class));
    assertThat(AnnotatedMethods.sourceOf(Orders.class.getMethod("handle", Integer.class)))
        .as("an overload")
        .isEmpty();
    assertThat(AnnotatedMethods.sourceOf(Counts.class.getMethod("handle", List.class)))
        .as("through a generic class between them")
        .contains(Handler.class.getMethod("handle", Object.class));
    assertThat(
            AnnotatedMethods.sourceOf(
                Load.class.getDeclaredMethod("run", String.class, String[].class)))
        .contains(Step.class.getDeclaredMethod("run", Object.class, Object[].class));
    assertThat(
            AnnotatedMethods.sourceOf(
                Load.class.getDeclaredMethod("run", Integer.class, Integer[].class)))
        .isEmpty();
    assertThat(AnnotatedMethods.of(Orders.class))
        .containsExactly(Orders.class.getMethod("handle", String.class));
  }

  interface Measured<T extends Number> {
    @DistributedLock
    void measure(T value);
  }

  static class Meter<U> {
    public void measure(U value) {}
  }

  static class IntMeter extends Meter<Integer> implements Measured<Integer> {}

  @Test
  void aSuperclassMethodImplementingALockedGenericInterfaceMethodForASubclassIsFound()
      throws Exception {
    // Meter.measure(U) erases to measure(Object), Measured.measure(T) to measure(Number).
    assertThat(
            AnnotatedMethods.lockedInterfaceMethodImplementedBy(
                IntMeter.class, Meter.class.getMethod("measure", Object.class)))
        .contains(Measured.class.getMethod("measure", Number.class));
    assertThat(
            AnnotatedMethods.lockedInterfaceMethodImplementedBy(
                Meter.class, Meter.class.getMethod("measure", Object.class)))
        .as("a class that does not implement the interface")
        .isEmpty();
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
