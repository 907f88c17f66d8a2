package dev.locksmith.micronaut;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.internal.AnnotatedMethods;
import dev.locksmith.core.internal.Proxies;
import dev.locksmith.core.internal.ReactiveReturns;
import dev.locksmith.core.internal.Signatures;
import io.micronaut.aop.InterceptorBinding;
import io.micronaut.context.BeanContext;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.AnnotationMetadata;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.inject.BeanDefinition;
import io.micronaut.inject.ExecutableMethod;
import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks every {@code @DistributedLock} method of the context's beans at start-up, so that a
 * mistake stops the application with a message naming the class, method and attribute instead of
 * failing the first call:
 *
 * <ul>
 *   <li>the engine's checks ({@link Locksmith#validate(Method)}): durations, key expressions with
 *       their parameter names, provider names, busy policy and return type (a plain {@code Future},
 *       which cannot be held until it completes, is refused there), and a lazy result the
 *       interceptor cannot hold ({@link Locksmith#validateForInvoke(Method)}): one that Micronaut
 *       cannot convert to a publisher (a JDK {@code Flow.Publisher}, an RxJava type without its
 *       Micronaut module), or any publisher without Reactor on the class path;
 *   <li>annotated methods that Micronaut does not intercept, because the class was compiled without
 *       {@code locking-micronaut} on the annotation-processor path (or the method is private,
 *       static or final) and would silently run without a lock.
 * </ul>
 */
@Context
@Requires(condition = OnOffSwitch.LockingEnabled.class)
final class LockValidation {
  private static final Logger LOG = LoggerFactory.getLogger(LockValidation.class);

  LockValidation(BeanContext beanContext, Locksmith locksmith, LockedMethods methods) {
    try {
      check(beanContext, locksmith, methods);
    } catch (RuntimeException | Error e) {
      // The start-up fails here, and Micronaut closes none of the beans made so far: the engine
      // (its threads, the providers it made from URLs) is closed now.
      locksmith.close();
      throw e;
    }
  }

  private static void check(BeanContext beanContext, Locksmith locksmith, LockedMethods methods) {
    Set<Method> checked = new HashSet<>();
    for (BeanDefinition<?> definition : beanContext.getAllBeanDefinitions()) {
      for (Method method : interceptedMethods(definition, methods)) {
        if (!checked.add(method)) {
          continue;
        }
        if (heldAsPublisher(method)) {
          locksmith.validate(method);
        } else {
          // The interceptor runs it through invoke: a lazy result would fail every call.
          locksmith.validateForInvoke(method);
        }
      }
    }
    for (BeanDefinition<?> definition : beanContext.getAllBeanDefinitions()) {
      checkIntercepted(definition, methods, checked);
    }
    LOG.debug("Locksmith checked {} @DistributedLock methods", checked.size());
  }

  /**
   * Whether the interceptor holds the method's result as a publisher ({@code InterceptedMethod}'s
   * rule, with Reactor to hold it), not through {@code invoke}: Micronaut converts no {@code
   * java.*} type, such as {@code Flow.Publisher}, and an RxJava or Mutiny type only with its
   * module.
   */
  private static boolean heldAsPublisher(Method method) {
    Class<?> type = method.getReturnType();
    return !CompletionStage.class.isAssignableFrom(type)
        && Publishers.isConvertibleToPublisher(type)
        && ReactiveReturns.isReactorPresent();
  }

  /** The annotated methods that this bean definition runs through the interceptor. */
  private static Set<Method> interceptedMethods(
      BeanDefinition<?> definition, LockedMethods methods) {
    Set<Method> intercepted = new HashSet<>();
    for (ExecutableMethod<?, ?> executable : definition.getExecutableMethods()) {
      // Executable without the binding: made so by another stereotype (@Scheduled, a route,
      // @Executable) in a class compiled without the mapper; checkIntercepted refuses it.
      if (executable.hasStereotype(DistributedLock.class) && boundToTheInterceptor(executable)) {
        intercepted.add(methods.register(executable));
      }
    }
    return intercepted;
  }

  /**
   * Whether the mapper bound {@link DistributedLock} to its interceptor on this method: its
   * metadata holds {@code @InterceptorBinding(DistributedLock.class)}, which only the mapper adds.
   */
  private static boolean boundToTheInterceptor(ExecutableMethod<?, ?> executable) {
    return executable.getAnnotationValuesByType(InterceptorBinding.class).stream()
        .anyMatch(
            binding ->
                binding
                    .annotationClassValue(AnnotationMetadata.VALUE_MEMBER)
                    .map(value -> value.getName().equals(DistributedLock.class.getName()))
                    .orElse(false));
  }

  /**
   * Fails for an annotated method of the bean's class that this bean does not run through the
   * interceptor, even when another bean of the same class does (a bean a {@code @Factory} method
   * returns is not advised), unless this one replaces another ({@code @Replaces}, a test's mock).
   */
  private static void checkIntercepted(
      BeanDefinition<?> definition, LockedMethods methods, Set<Method> interceptedElsewhere) {
    Class<?> type = definition.getBeanType();
    LockedMethods.inheritedBodies(type)
        .forEach(
            (body, locked) -> {
              throw notIntercepted(
                  definition,
                  body,
                  "the annotation is on "
                      + Signatures.of(locked)
                      + ", which this method implements for "
                      + type.getName()
                      + ", and Micronaut does not carry a method annotation over to the method"
                      + " that implements it; put @DistributedLock on "
                      + Signatures.of(body)
                      + " itself, or override it in "
                      + type.getName()
                      + " with the annotation");
            });
    List<Method> annotated = LockedMethods.annotatedMethods(type);
    if (annotated.isEmpty()) {
      return;
    }
    Set<Method> intercepted = interceptedMethods(definition, methods);
    // A replacement (@Replaces; a test's @MockBean is one) stands in for the intercepted bean: it
    // is held to the class's rule, not to this bean's.
    boolean replacement = definition.hasStereotype(Replaces.class);
    for (Method method : annotated) {
      boolean elsewhere = interceptedElsewhere.contains(method);
      if (!intercepted.contains(method) && !(replacement && elsewhere)) {
        throw notIntercepted(definition, method, elsewhere);
      }
      // Micronaut makes the method executable, but its proxy, in the bean's package, cannot
      // override a package-private method of another package: callers there reach it unlocked.
      String why = Proxies.whyNot(definition.getBeanType(), method);
      if (why != null && !replacement) {
        throw notIntercepted(definition, method, notInterceptable(why));
      }
    }
  }

  private static LockConfigurationException notIntercepted(
      BeanDefinition<?> definition, Method method, boolean interceptedElsewhere) {
    return notIntercepted(definition, method, reason(method, definition, interceptedElsewhere));
  }

  private static String reason(
      Method method, BeanDefinition<?> definition, boolean interceptedElsewhere) {
    Method source = AnnotatedMethods.sourceOf(method).orElse(method);
    return interceptedElsewhere
        ? "this bean ("
            + definition
            + ") is made without Micronaut's interceptor, as a bean a @Factory method returns"
            + " is, while the class's own bean is intercepted; inject the bean Micronaut"
            + " creates for the class instead of making one in a factory"
        : !source.equals(method)
            ? "the annotation is on "
                + Signatures.of(source)
                + ", and Micronaut does not carry a method annotation over to the method that"
                + " implements or overrides it; put @DistributedLock on "
                + Signatures.of(method)
                + " itself"
            : Proxies.canIntercept(definition.getBeanType(), method)
                ? "Micronaut does not intercept it: the class was compiled without Locksmith's"
                    + " annotation mapper. Add dev.locksmith:locksmith-micronaut to the annotation"
                    + " processor path next to io.micronaut:micronaut-inject-java"
                : notInterceptable(
                    Objects.requireNonNull(Proxies.whyNot(definition.getBeanType(), method)));
  }

  private static String notInterceptable(String why) {
    return "it is "
        + why
        + ", so Micronaut cannot intercept it (its proxy cannot intercept a method that is "
        + Proxies.NOT_INTERCEPTABLE
        + "); make it protected or public and not final";
  }

  /**
   * The failure for a locked method of a bean that Micronaut does not run through the interceptor.
   */
  static LockConfigurationException notIntercepted(
      BeanDefinition<?> definition, Method method, String reason) {
    return new LockConfigurationException(
        "@DistributedLock on "
            + Signatures.of(method)
            + " (bean "
            + definition.getBeanType().getName()
            + ") would run without a lock: "
            + reason);
  }
}
