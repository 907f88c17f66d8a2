package dev.locksmith.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method only while this process holds an owner-scoped lease on a named lock.
 *
 * <p>The lock id is {@link #name()}, followed by {@code ":"} and the value of {@link #key()} when a
 * key is given. Every lease carries a fencing token that increases with every grant of the lock.
 *
 * <pre>{@code
 * @DistributedLock(key = "#accountId", ttl = "10s", onBusy = OnBusy.FAIL)
 * void transfer(String accountId, long cents) { ... }
 * }</pre>
 *
 * <p>Durations accept {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 1d} and ISO-8601
 * ({@code PT10S}). The annotation may also be placed on another annotation type, which then stands
 * for this one with the same attribute values.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
public @interface DistributedLock {

  /**
   * The lock's name. Default: {@code SimpleClassName.methodName} of the annotated method.
   *
   * @return the name, or empty for the default
   */
  String name() default "";

  /**
   * A SpEL expression over the method's arguments whose value is appended to the name ({@code
   * name:key}). Parameters are {@code #paramName}, {@code #p0} or {@code #a0}; {@code
   * #root.method}, {@code #root.args} and {@code #root.targetClass} are also available. A key in
   * single quotes ({@code 'nightly'}) is a literal and needs no expression language; any other key
   * needs {@code dev.locksmith:locksmith-spel} on the class path, which every integration brings.
   * Default: no key, one lock for every call. A key that evaluates to {@code null} or an empty
   * string is an error; an {@code Optional} stands for its value, and an empty one is an error.
   *
   * <p>A key that evaluates to a collection or array ({@code "{#from, #to}"}) locks every distinct
   * element as its own lock id ({@code name:element}), all or nothing, in one global order (the
   * elements' text sorted), so two calls over the same keys cannot deadlock whatever order they
   * list them in; an empty collection is an error, and so are more than 64 distinct elements (the
   * most one call may lock).
   *
   * @return the key expression, or empty for none
   */
  String key() default "";

  /**
   * Length of the lease. While the method runs the lease is renewed every third of this, unless
   * {@link #renew()} is {@code false}. Durations here and in {@link #waitTimeout()} and {@link
   * #minHold()} are a whole number with {@code ms}, {@code s}, {@code m}, {@code h} or {@code d},
   * or ISO-8601 ({@code PT10S}); each at most 365 days, and the ttl more than zero. Anything else
   * fails at start-up (or the first call) naming the class, method and attribute.
   *
   * @return the lease length
   */
  String ttl() default "30s";

  /**
   * Whether the lease is renewed while the method runs. When {@code false}, {@link #ttl()} is a
   * hard upper bound on how long the lock is held, and the lease is reported lost when it runs out.
   *
   * @return whether the lease is renewed
   */
  boolean renew() default true;

  /**
   * What to do when another owner holds the lock. Default {@link OnBusy#AUTO}: skip for scheduled
   * methods (each tick runs once across instances), wait for the others.
   *
   * @return what a call does when the lock is busy
   */
  OnBusy onBusy() default OnBusy.AUTO;

  /**
   * How long {@link OnBusy#WAIT} waits for the lock before failing.
   *
   * @return the longest wait
   */
  String waitTimeout() default "30s";

  /**
   * Keep the lock at least this long after acquiring it, even when the method returns earlier: the
   * guard for scheduled jobs on hosts whose clocks differ. Default: release at once.
   *
   * @return the shortest hold
   */
  String minHold() default "0s";

  /**
   * The name of a configured provider. Default: the default provider.
   *
   * @return the provider's name, or empty for the default
   */
  String provider() default "";
}
