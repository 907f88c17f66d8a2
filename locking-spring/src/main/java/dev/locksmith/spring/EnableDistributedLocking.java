package dev.locksmith.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;

/**
 * Turns on {@code @DistributedLock} for the beans of a Spring application without Spring Boot (Boot
 * applications get the same from the auto-configuration).
 *
 * <pre>{@code
 * @Configuration
 * @EnableDistributedLocking
 * class AppConfig { }   // locksmith.url in the Environment, or a LockProvider bean
 * }</pre>
 *
 * <p>Providers come from {@code LockProvider} beans (each under its bean name; the only or
 * {@code @Primary} one is the default) and from {@code locksmith.url} and {@code
 * locksmith.providers.<name>.url} in the {@code Environment}. A {@code Locksmith} bean defined by
 * the application replaces the one built here.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Import({EnableDistributedLockingRegistrar.class, DefaultLocksmithSelector.class})
public @interface EnableDistributedLocking {

  /**
   * How annotated methods are intercepted.
   *
   * @return the interception mode
   */
  LockingMode mode() default LockingMode.PROXY;

  /**
   * The order of the lock advisor among other advisors on the same bean. The default runs the lock
   * outside {@code @Transactional} (whose advisor has the lowest precedence).
   *
   * @return the advisor's order
   */
  int order() default LockingInfrastructure.DEFAULT_ORDER;

  /**
   * Whether proxies subclass the target class instead of implementing its interfaces.
   *
   * @return whether proxies subclass the target class
   */
  boolean proxyTargetClass() default false;
}
