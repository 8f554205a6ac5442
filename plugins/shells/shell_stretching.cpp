// Shell in-plane stretching: one axial spring per mesh edge (MAT-DiSMech §3.1, eq. 9-10).
#include "shell_stretching.hpp"

#include <cmath>
#include <stdexcept>

namespace soma::shells {

double shell_stretching_stiffness(StretchingMode mode, double youngs_modulus, double poisson_ratio,
                                  double thickness, double rest_length) {
    switch (mode) {
        case StretchingMode::hinge:
            // (sqrt(3)/2) E h l_bar: the reference code's value, twice the paper's sqrt(3)/4; it is
            // the triangular spring-lattice result (the paper's sqrt(3)/4 after MAT-DiSMech eq. 10 is taken to be a typo).
            return 0.5 * std::sqrt(3.0) * youngs_modulus * thickness * rest_length;
        case StretchingMode::midedge:
            if (!(poisson_ratio < 1.0))
                throw std::invalid_argument("mid-edge shell stretching needs poisson_ratio < 1");
            // 2 E h l_bar / (1 - nu^2): the reference code's value (MAT-DiSMech's reference code).
            return 2.0 * youngs_modulus * thickness * rest_length / (1.0 - poisson_ratio * poisson_ratio);
    }
    throw std::invalid_argument("unknown shell stretching mode");
}

}  // namespace soma::shells
