package dev.locksmith.core;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.Set;

/**
 * Recognises methods that a scheduler calls on every instance of an application, by the names of
 * the schedulers' annotations and interfaces, so the engine depends on none of them.
 */
final class ScheduledMethods {
  private static final Set<String> ANNOTATIONS =
      Set.of(
          "org.springframework.scheduling.annotation.Scheduled",
          "org.springframework.scheduling.annotation.Schedules",
          "io.micronaut.scheduling.annotation.Scheduled",
          "io.micronaut.scheduling.annotation.Schedules",
          "jakarta.ejb.Schedule",
          "jakarta.ejb.Schedules",
          "javax.ejb.Schedule",
          "javax.ejb.Schedules",
          "org.jobrunr.jobs.annotations.Recurring");

  private static final String QUARTZ_JOB = "org.quartz.Job";

  private ScheduledMethods() {}

  /**
   * Whether a scheduler calls the method: a scheduling annotation, repeated (its container) or on
   * an annotation of the method's, at any depth; or Quartz's execute.
   */
  static boolean isScheduled(Method method) {
    Set<Class<?>> seen = new HashSet<>();
    for (Annotation annotation : method.getAnnotations()) {
      if (isSchedule(annotation.annotationType(), seen)) {
        return true;
      }
    }
    return method.getName().equals("execute")
        && method.getParameterCount() == 1
        && method.getParameterTypes()[0].getName().equals("org.quartz.JobExecutionContext")
        && implementsQuartzJob(method.getDeclaringClass());
  }

  private static boolean isSchedule(Class<? extends Annotation> type, Set<Class<?>> seen) {
    if (ANNOTATIONS.contains(type.getName())) {
      return true;
    }
    if (!seen.add(type) || type.getName().startsWith("java.lang.annotation.")) {
      return false;
    }
    for (Annotation annotation : type.getAnnotations()) {
      if (isSchedule(annotation.annotationType(), seen)) {
        return true;
      }
    }
    return false;
  }

  private static boolean implementsQuartzJob(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      for (Class<?> implemented : c.getInterfaces()) {
        if (implemented.getName().equals(QUARTZ_JOB) || implementsQuartzJob(implemented)) {
          return true;
        }
      }
    }
    return false;
  }
}
