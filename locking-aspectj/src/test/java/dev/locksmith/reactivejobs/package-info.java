/** A woven class whose locked method returns a lazy result the aspect cannot hold. */
@NullMarked
package dev.locksmith.reactivejobs;

import org.jspecify.annotations.NullMarked;
