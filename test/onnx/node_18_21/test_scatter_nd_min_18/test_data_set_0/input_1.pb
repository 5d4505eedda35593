BupdatesJ$ù?Sz
À~h¤?pC’¾ˆ¾?®±h?¨TŽ?xÂÀ­Ñ¿