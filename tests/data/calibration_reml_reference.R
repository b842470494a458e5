# Reference values from R's lme4 for the calibration model (issue 16, item 1 and item 7).
#
# Run from the repository root (R and lme4 from Debian: r-base-core, r-cran-lme4):
#     Rscript --vanilla tests/data/calibration_reml_reference.R
# It reads tests/data/calibration_reml_reference.csv and (re)writes
# tests/data/calibration_reml_reference.json. Optional arguments: CSV path, JSON path.
#
# Models (candidates are fixed effects so that non-random assignment cannot bias
# severities; questions are fixed with sum-to-zero contrasts, contr.sum, so the
# question coefficients are deviations from the average question and the
# candidate coefficients are the expected rating from an average interviewer on
# an average question):
#   with_scorecard: lmer(rating ~ 0 + candidate + question + (1|interviewer) + (1|scorecard), REML = TRUE)
#   no_scorecard:   lmer(rating ~ 0 + candidate + question + (1|interviewer), REML = TRUE)
#   fixed_lm:       lm(rating ~ candidate + interviewer + question),
#                   contr.sum for interviewer and question, treatment for candidate.
# lme4's random effects are interviewer *effects* (positive = rates higher,
# i.e. lenient); the project's severity is their negative (positive = harsher).
#
# The data set was generated once with numpy (the script below, run as
# `python gen.py tests/data/calibration_reml_reference.csv` with numpy 2.4.6);
# the CSV, not the generator, is the reference input.
# """Generate tests/data/calibration_reml_reference.csv (deterministic)."""
# import sys
# import numpy as np
# 
# SEED = 20240616
# rng = np.random.default_rng(SEED)
# N_CAND, N_INT, N_Q = 40, 12, 8
# ability = rng.normal(0.0, 0.6, N_CAND)                 # candidate (loop) effect
# severity = np.linspace(-0.6, 0.6, N_INT)               # true severity (+ = harsher)
# severity = severity[rng.permutation(N_INT)]
# easiness = np.linspace(-0.4, 0.4, N_Q)[rng.permutation(N_Q)]
# HALO_SD, NOISE_SD, MEAN = 0.35, 0.55, 2.6
# rows = []
# card = 0
# for c in range(N_CAND):
#     k = int(rng.integers(3, 5))                         # panel of 3-4
#     w = np.exp(2.5 * ability[c] * severity)             # harsh interviewers meet strong candidates
#     panel = rng.choice(N_INT, size=k, replace=False, p=w / w.sum())
#     for i in sorted(panel):
#         card += 1
#         halo = rng.normal(0.0, HALO_SD)
#         m = int(rng.integers(3, 6))                     # 3-5 questions per scorecard
#         qs = sorted(rng.choice(N_Q, size=m, replace=False))
#         for q in qs:
#             latent = MEAN + ability[c] - severity[i] + easiness[q] + halo + rng.normal(0.0, NOISE_SD)
#             r = int(np.clip(np.rint(latent), 1, 4))
#             rows.append((c + 1, i + 1, q + 1, card, r))
# out = sys.argv[1]
# with open(out, "w") as fh:
#     fh.write("candidate,interviewer,question,scorecard,rating\n")
#     for row in rows:
#         fh.write(",".join(map(str, row)) + "\n")
# np.set_printoptions(precision=4, suppress=True)
# print("rows", len(rows), "cards", card)
# print("true severity", severity)
# print("true easiness", easiness)
# print("corr(ability, mean severity met)",
#       np.corrcoef(ability, [np.mean([severity[r[1]-1] for r in rows if r[0]==c+1]) for c in range(N_CAND)])[0,1])

suppressPackageStartupMessages({
  library(lme4)
  library(jsonlite)
})

args <- commandArgs(trailingOnly = TRUE)
csv_path <- if (length(args) >= 1) args[[1]] else "tests/data/calibration_reml_reference.csv"
json_path <- if (length(args) >= 2) args[[2]] else "tests/data/calibration_reml_reference.json"

raw <- read.csv(csv_path)
d <- data.frame(
  candidate = factor(raw$candidate, levels = sort(unique(raw$candidate))),
  interviewer = factor(raw$interviewer, levels = sort(unique(raw$interviewer))),
  question = factor(raw$question, levels = sort(unique(raw$question))),
  scorecard = factor(raw$scorecard, levels = sort(unique(raw$scorecard))),
  rating = as.numeric(raw$rating)
)
n_q <- nlevels(d$question)
n_i <- nlevels(d$interviewer)
contrasts(d$question) <- contr.sum(n_q)
contrasts(d$interviewer) <- contr.sum(n_i)

# bobyqa with a tight end radius so the optimum is reproducible to ~1e-8 in theta.
ctrl <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-10, maxfun = 1e5),
                    check.conv.singular = "ignore")

named <- function(x, nm) { x <- as.numeric(x); names(x) <- nm; as.list(x) }

# Full vector of the 8 question (or 12 interviewer) effects from the contr.sum
# coefficients, with standard errors: effects = L b, Cov = L V L'.
sum_effects <- function(coefs, vc, names_in, levels_out) {
  L <- contr.sum(length(levels_out))
  b <- coefs[names_in]
  V <- vc[names_in, names_in, drop = FALSE]
  eff <- as.numeric(L %*% b)
  se <- sqrt(diag(L %*% V %*% t(L)))
  list(level = levels_out, effect = eff, se = se)
}

describe_lmer <- function(fit, with_scorecard) {
  vc <- as.data.frame(VarCorr(fit))
  comp <- list(
    interviewer = vc$vcov[vc$grp == "interviewer"],
    residual = vc$vcov[vc$grp == "Residual"]
  )
  if (with_scorecard) comp$scorecard <- vc$vcov[vc$grp == "scorecard"]
  re <- as.data.frame(ranef(fit, condVar = TRUE))
  ri <- re[re$grpvar == "interviewer", ]
  ri <- ri[order(as.integer(as.character(ri$grp))), ]
  out <- list(
    variance_components = comp,
    sd_components = lapply(comp, sqrt),
    theta = as.numeric(getME(fit, "theta")),
    theta_names = names(getME(fit, "theta")),
    reml_criterion = as.numeric(REMLcrit(fit)),
    reml_criterion_treatment_contrasts = NA,
    logLik_reml = as.numeric(logLik(fit)),
    optimizer = fit@optinfo$optimizer,
    optimizer_messages = fit@optinfo$conv$lme4$messages,
    interviewer_blups = list(
      interviewer = as.integer(as.character(ri$grp)),
      condval = ri$condval,
      condsd = ri$condsd,
      severity = -ri$condval
    )
  )
  # Prediction error SDs of the interviewer BLUPs from Henderson's mixed model
  # equations at the REML estimates: the inverse of the full coefficient matrix
  # [X'X X'Z; Z'X Z'Z + sigma^2 G^-1] / sigma^2 gives Var(u_hat - u) allowing for
  # the estimation of the candidate and question effects (condsd does not).
  # "centred" is Var of P(u_hat - u), P = I - J/n_i: the error of the interviewer's
  # deviation from the average interviewer, which is what severity reports.
  X <- as.matrix(getME(fit, "X"))
  Z <- as.matrix(getME(fit, "Z"))
  s2 <- sigma(fit)^2
  Lt <- as.matrix(getME(fit, "Lambdat"))
  G <- s2 * crossprod(Lt)
  lhs <- rbind(cbind(crossprod(X), crossprod(X, Z)),
               cbind(crossprod(Z, X), crossprod(Z) + s2 * solve(G))) / s2
  inv <- solve(lhs)
  gp <- getME(fit, "Gp")
  term <- match("interviewer", names(getME(fit, "cnms")))
  cols <- ncol(X) + (gp[term] + 1):gp[term + 1]
  Fm <- inv[cols, cols]
  Pm <- diag(n_i) - matrix(1 / n_i, n_i, n_i)
  stopifnot(identical(colnames(Z)[cols - ncol(X)], levels(d$interviewer)))
  out$interviewer_blups$pev_sd_full <- sqrt(diag(Fm))
  out$interviewer_blups$pev_sd_centred <- sqrt(diag(Pm %*% Fm %*% Pm))
  fe <- fixef(fit)
  V <- as.matrix(vcov(fit))
  qnames <- paste0("question", seq_len(n_q - 1))
  qe <- sum_effects(fe, V, qnames, levels(d$question))
  out$question_effects <- list(question = as.integer(qe$level), easiness = qe$effect, se = qe$se)
  cnames <- paste0("candidate", levels(d$candidate))
  out$candidate_adjusted <- list(
    candidate = as.integer(levels(d$candidate)),
    adjusted = as.numeric(fe[cnames]),
    se = as.numeric(sqrt(diag(V)[cnames]))
  )
  if (with_scorecard) {
    rs <- re[re$grpvar == "scorecard", ]
    rs <- rs[order(as.integer(as.character(rs$grp))), ]
    out$scorecard_blups <- list(
      scorecard = as.integer(as.character(rs$grp)), condval = rs$condval, condsd = rs$condsd
    )
  }
  out
}

f_card <- rating ~ 0 + candidate + question + (1 | interviewer) + (1 | scorecard)
f_nocard <- rating ~ 0 + candidate + question + (1 | interviewer)
fit_card <- lmer(f_card, data = d, REML = TRUE, control = ctrl)
fit_nocard <- lmer(f_nocard, data = d, REML = TRUE, control = ctrl)

res_card <- describe_lmer(fit_card, TRUE)
res_nocard <- describe_lmer(fit_nocard, FALSE)

# The REML criterion includes log det(X'V^-1 X), which depends on how the fixed
# effects are parametrised (the estimates do not): record it under R's default
# treatment contrasts for question too.
d_tr <- d
contrasts(d_tr$question) <- contr.treatment(n_q)
fit_card_tr <- lmer(f_card, data = d_tr, REML = TRUE, control = ctrl)
fit_nocard_tr <- lmer(f_nocard, data = d_tr, REML = TRUE, control = ctrl)
res_card$reml_criterion_treatment_contrasts <- as.numeric(REMLcrit(fit_card_tr))
res_nocard$reml_criterion_treatment_contrasts <- as.numeric(REMLcrit(fit_nocard_tr))

# Cross-check the optimum with a second optimizer.
alt <- lmer(f_card, data = d, REML = TRUE,
            control = lmerControl(optimizer = "Nelder_Mead", check.conv.singular = "ignore"))
vc_alt <- as.data.frame(VarCorr(alt))
res_card$cross_check_nelder_mead <- list(
  variance_components = setNames(as.list(vc_alt$vcov), tolower(vc_alt$grp)),
  reml_criterion = as.numeric(REMLcrit(alt))
)

# Fixed-effects least squares (the project's fit_additive model).
fit_lm <- lm(rating ~ candidate + interviewer + question, data = d)
b <- coef(fit_lm)
V <- vcov(fit_lm)
ie <- sum_effects(b, V, paste0("interviewer", seq_len(n_i - 1)), levels(d$interviewer))
qe <- sum_effects(b, V, paste0("question", seq_len(n_q - 1)), levels(d$question))
# adjusted_c = intercept + candidate effect (treatment coding, candidate 1 = baseline),
# the fitted rating for an average interviewer on an average question.
n_c <- nlevels(d$candidate)
A <- cbind(1, rbind(0, diag(n_c - 1)))
cidx <- c("(Intercept)", paste0("candidate", levels(d$candidate)[-1]))
adj <- as.numeric(A %*% b[cidx])
adj_se <- sqrt(diag(A %*% V[cidx, cidx] %*% t(A)))
res_lm <- list(
  residual_variance = summary(fit_lm)$sigma^2,
  df_residual = fit_lm$df.residual,
  rank = fit_lm$rank,
  interviewer = list(
    interviewer = as.integer(ie$level), effect = ie$effect, severity = -ie$effect, se = ie$se
  ),
  question = list(question = as.integer(qe$level), easiness = qe$effect, se = qe$se),
  candidate_adjusted = list(candidate = as.integer(levels(d$candidate)), adjusted = adj, se = adj_se)
)

# The project's halo model: candidates, interviewers and questions fixed
# (contr.sum for interviewer and question), a random scorecard halo (REML).
# Its fixed-effect estimates are GLS; fit_additive keeps least squares and
# uses only the two variance components, to widen its standard errors.
f_halo <- rating ~ 0 + candidate + interviewer + question + (1 | scorecard)
fit_halo <- lmer(f_halo, data = d, REML = TRUE, control = ctrl)
vc_halo <- as.data.frame(VarCorr(fit_halo))
V_halo <- as.matrix(vcov(fit_halo))
ie_halo <- sum_effects(fixef(fit_halo), V_halo, paste0("interviewer", seq_len(n_i - 1)),
                       levels(d$interviewer))
res_halo <- list(
  formula = deparse1(f_halo),
  variance_components = list(
    scorecard = vc_halo$vcov[vc_halo$grp == "scorecard"],
    residual = vc_halo$vcov[vc_halo$grp == "Residual"]
  ),
  interviewer = list(
    interviewer = as.integer(ie_halo$level), severity = -ie_halo$effect, se = ie_halo$se
  )
)

pkg <- function(p) as.character(packageVersion(p))
result <- list(
  description = paste(
    "Reference values for the calibration model (issue 16) computed with R's lme4 on",
    "tests/data/calibration_reml_reference.csv. Written by tests/data/calibration_reml_reference.R;",
    "do not edit by hand."
  ),
  command = "Rscript --vanilla tests/data/calibration_reml_reference.R",
  versions = list(
    R = R.version.string, lme4 = pkg("lme4"), Matrix = pkg("Matrix"),
    minqa = pkg("minqa"), jsonlite = pkg("jsonlite"),
    platform = R.version$platform, blas = extSoftVersion()[["BLAS"]]
  ),
  data = list(
    csv = basename(csv_path),
    md5 = unname(tools::md5sum(csv_path)),
    ratings = nrow(d), candidates = nlevels(d$candidate), interviewers = n_i,
    questions = n_q, scorecards = nlevels(d$scorecard),
    generator = paste(
      "numpy default_rng(20240616); 40 candidates (one loop each), ability N(0, 0.6);",
      "12 interviewers, true severity evenly spaced -0.6..0.6 (permuted); 8 questions, easiness",
      "evenly spaced -0.4..0.4 (permuted); panel of 3-4 interviewers drawn without replacement",
      "with weights exp(2.5 * ability * severity) (harsh interviewers meet stronger candidates);",
      "3-5 distinct questions per scorecard; latent = 2.6 + ability - severity + easiness +",
      "halo N(0, 0.35) per scorecard + noise N(0, 0.55), rounded and clipped to 1..4.",
      "Full generator in the header of the R script."
    )
  ),
  conventions = list(
    question_contrasts = "contr.sum: question effects sum to zero over the 8 questions",
    candidate = "0 + candidate: one fixed coefficient per candidate = expected rating from an average interviewer (random effect 0) on an average question",
    interviewer_blups = "condval = conditional mode (BLUP) of the interviewer effect, positive = lenient; severity = -condval",
    condsd = "sqrt of lme4's conditional variance of the random effect given the data at the REML estimates with the fixed effects treated as known (it does not include the uncertainty of the candidate and question estimates)",
    pev_sd = "prediction error SDs of the interviewer BLUPs from the inverse of Henderson's mixed model equations at the REML estimates (include the uncertainty of the candidate and question effects); pev_sd_full = sqrt(Var(u_hat_i - u_i)), pev_sd_centred = the same for the deviation from the mean of the interviewers' effects (the sum-to-zero severity scale); full^2 = centred^2 + interviewer variance / n_interviewers here",
    fixed_lm = "lm(rating ~ candidate + interviewer + question), contr.sum for interviewer and question; severity = -effect; se from vcov(lm), sigma^2 = RSS / df_residual"
  ),
  reml = list(
    with_scorecard = c(list(formula = deparse1(f_card)), res_card),
    no_scorecard = c(list(formula = deparse1(f_nocard)), res_nocard),
    halo_fixed_interviewers = res_halo
  ),
  fixed_lm = res_lm
)

writeLines(toJSON(result, auto_unbox = TRUE, digits = NA, pretty = TRUE, na = "null"), json_path)
cat("wrote", json_path, "\n")
